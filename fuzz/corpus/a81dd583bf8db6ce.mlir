func.func @table_rank(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %len: tensor<2xi32>, %t: tensor<8xi32>) -> tensor<2x4x1x64xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<2xi32>) block_table(%t : tensor<8xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}
