func.func @paged(%q: tensor<4x8x3x64xbf16>, %kc: tensor<35x2x256x64xbf16>, %vc: tensor<35x2x256x64xbf16>,
                 %len: tensor<4xi32>, %table: tensor<4x8xi32>) -> tensor<4x8x3x64xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x8xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x8x3x64xbf16>, tensor<35x2x256x64xbf16>, tensor<35x2x256x64xbf16> -> tensor<4x8x3x64xbf16>
  return %o : tensor<4x8x3x64xbf16>
}
