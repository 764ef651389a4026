// REQUIRES: gpu
// Batch-invariant paged decode (pages of 16): the same bits with any split
// count (each launch is run again with 3 more splits).
// RUN: attn-run --check --batch-invariant %s | FileCheck %s
// RUN: attn-run --check --batch-invariant --variant=sm80 --splits=9 %s | FileCheck %s
// RUN: attn-run --check --batch-invariant --variant=sm90ws %s | FileCheck %s
// CHECK: batch-invariant: PASS
// CHECK: check output 0 {{.*}} PASS
func.func @paged(%q: tensor<4x16x1x128xbf16>, %kc: tensor<1200x4x16x128xbf16>, %vc: tensor<1200x4x16x128xbf16>,
                 %len: tensor<4xi32>, %table: tensor<4x300xi32>) -> tensor<4x16x1x128xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x300xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x16x1x128xbf16>, tensor<1200x4x16x128xbf16>, tensor<1200x4x16x128xbf16> -> tensor<4x16x1x128xbf16>
  return %o : tensor<4x16x1x128xbf16>
}
