func.func @transposed(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x64x16xbf16>, %vc: tensor<10x4x16x64xbf16>, %len: tensor<2xi32>, %t: tensor<2x4xi32>) -> tensor<2x4x1x64xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32, transpose_k, mask = #attn.mask<key_padding>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x64x16xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}
