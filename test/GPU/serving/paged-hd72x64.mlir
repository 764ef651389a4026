// REQUIRES: gpu
// A paged cache whose keys and values differ in head dim (72 and 64): V's
// rows are copied in other chunks than K's, so V looks its pages up on its
// own; 72 columns are 9 chunks per row, which no warp count divides (each
// thread's copies change column). Pages of 16, GQA 8/2, 3 new tokens.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --block-m=64 --block-n=64 --num-warps=4 --stages=2 --splits=2 %s | FileCheck %s
// RUN: attn-run --check --block-m=128 --block-n=32 --num-warps=8 --stages=1 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @paged(%q: tensor<3x8x3x72xf16>, %kc: tensor<50x2x16x72xf16>, %vc: tensor<50x2x16x64xf16>,
                 %len: tensor<3xi32>, %table: tensor<3x16xi32>) -> tensor<3x8x3x64xf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<3xi32>) block_table(%table : tensor<3x16xi32>)
      {scale = 0.117851 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<3x8x3x72xf16>, tensor<50x2x16x72xf16>, tensor<50x2x16x64xf16> -> tensor<3x8x3x64xf16>
  return %o : tensor<3x8x3x64xf16>
}
