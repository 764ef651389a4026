// RUN: not attn-opt %s "-attn-select-config=arch=sm_86 block-m=48" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not attn-opt %s "-attn-select-config=arch=sm_86 block-n=128 stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not attn-opt %s "-attn-select-config=arch=sm_90a block-m=64 num-warps=1 block-n=128" 2>&1 | FileCheck %s --check-prefix=REGS

// Overrides that no kernel can run are errors, located at the op.
// TILE: select-config-override-invalid.mlir:[[@LINE+5]]:8: error: 'attn.flash' op invalid tile override: block_m must be a positive multiple of 16 * num_warps = 128, got 48
// SMEM: select-config-override-invalid.mlir:[[@LINE+4]]:8: error: 'attn.flash' op config needs 313344 bytes of shared memory; sm_86 allows 101376
// REGS: select-config-override-invalid.mlir:[[@LINE+3]]:8: error: 'attn.flash' op config needs about 576 registers per thread; the limit is 255

func.func @hd128(%q: tensor<4x8x2048x128xbf16>, %k: tensor<4x8x2048x128xbf16>, %v: tensor<4x8x2048x128xbf16>) -> tensor<4x8x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32} : tensor<4x8x2048x128xbf16>, tensor<4x8x2048x128xbf16>, tensor<4x8x2048x128xbf16> -> tensor<4x8x2048x128xbf16>
  return %o : tensor<4x8x2048x128xbf16>
}
