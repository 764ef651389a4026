// RUN: attn-opt %s --attn-pipeline="arch=sm_80 variant=sm80 block-m=64 block-n=32 num-warps=4 stages=1" | FileCheck %s --check-prefix=TILES
// RUN: attn-opt %s --attn-pipeline="unfused=true" | FileCheck %s --check-prefix=UNFUSED
// RUN: attn-opt %s --attn-pipeline="arch=sm_80 backward=true" | FileCheck %s --check-prefix=BACKWARD
// RUN: not attn-opt %s --attn-pipeline="unfused=true backward=true" 2>&1 | FileCheck %s --check-prefix=BACKWARD-UNFUSED

// --attn-pipeline takes what the C++ API's compile takes (one builder):
// the select-config overrides, or the unfused path instead of fusion; the
// derived backward of the fused attention, configured with the forward.

// TILES-LABEL: func @sdpa
// TILES: attn.flash
// TILES-SAME: config = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 1>
// UNFUSED-LABEL: func @sdpa
// UNFUSED-NOT: attn.flash
// UNFUSED: attn.kernel "matmul"
// UNFUSED: attn.kernel "softmax"
// UNFUSED: attn.kernel "matmul"
// BACKWARD-LABEL: func @sdpa
// BACKWARD: attn.flash {{.*}}config = #attn.config<
// BACKWARD: attn.flash_bwd {{.*}}config = #attn.backward_config<variant = "sm80"
// BACKWARD-UNFUSED: error: found no attn.flash to differentiate; run --attn-fuse first
func.func @sdpa(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x2x64x64xf32> -> tensor<1x2x64x64xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
