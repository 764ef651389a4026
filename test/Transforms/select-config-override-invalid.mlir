// RUN: not attn-opt %s "-attn-select-config=arch=sm_86 block-m=48" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not attn-opt %s "-attn-select-config=arch=sm_86 block-n=128 stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not attn-opt %s "-attn-select-config=arch=sm_90a variant=sm80 block-m=64 num-warps=1 block-n=128" 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not attn-opt %s "-attn-select-config=arch=sm_90a block-m=128 num-warps=4" 2>&1 | FileCheck %s --check-prefix=WARPGROUP
// RUN: not attn-opt %s "-attn-select-config=arch=sm_90a variant=sm90 block-m=128 num-warps=4" 2>&1 | FileCheck %s --check-prefix=WARPGROUP90
// RUN: not attn-opt %s "-attn-select-config=arch=sm_90a variant=sm90ws block-m=64 num-warps=12" 2>&1 | FileCheck %s --check-prefix=CONSUMERS
// RUN: not attn-opt %s "-attn-select-config=arch=sm_80 variant=sm90" 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not attn-opt %s "-attn-select-config=arch=sm_90a variant=sm70" 2>&1 | FileCheck %s --check-prefix=VARIANT

// Overrides that no kernel can run are errors, located at the op.
// TILE: select-config-override-invalid.mlir:[[@LINE+10]]:8: error: 'attn.flash' op invalid tile override: block_m must be a positive multiple of 16 * num_warps = 128, got 48
// SMEM: select-config-override-invalid.mlir:[[@LINE+9]]:8: error: 'attn.flash' op config needs 313344 bytes of shared memory; sm_86 allows 101376
// REGS: select-config-override-invalid.mlir:[[@LINE+8]]:8: error: 'attn.flash' op config needs about 576 registers per thread; the limit is 255
// WARPGROUP: select-config-override-invalid.mlir:[[@LINE+7]]:8: error: 'attn.flash' op invalid tile override for the sm90ws variant (variant=sm80 selects mma.sync tiles): sm90ws needs a producer and 1 to 3 consumer warpgroups (num_warps 8, 12 or 16), got num_warps = 4
// WARPGROUP90: select-config-override-invalid.mlir:[[@LINE+6]]:8: error: 'attn.flash' op invalid tile override: sm90 needs whole warpgroups (num_warps 4 or 8) and block_m = 16 * num_warps, got block_m = 128, num_warps = 4
// CONSUMERS: select-config-override-invalid.mlir:[[@LINE+5]]:8: error: 'attn.flash' op invalid tile override: sm90ws needs block_m = 64 rows per consumer warpgroup = 128, got 64
// ARCH: select-config-override-invalid.mlir:[[@LINE+4]]:8: error: 'attn.flash' op variant sm90 cannot run this attention: it needs sm_90a, the target is sm_80
// VARIANT: error: unknown variant 'sm70'; expected one of sm90ws, sm90, sm80

func.func @hd128(%q: tensor<4x8x2048x128xbf16>, %k: tensor<4x8x2048x128xbf16>, %v: tensor<4x8x2048x128xbf16>) -> tensor<4x8x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32} : tensor<4x8x2048x128xbf16>, tensor<4x8x2048x128xbf16>, tensor<4x8x2048x128xbf16> -> tensor<4x8x2048x128xbf16>
  return %o : tensor<4x8x2048x128xbf16>
}
