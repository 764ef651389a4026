func.func @decode(%q: tensor<8x32x1x128xbf16>, %kc: tensor<512x8x16x128xbf16>, %len: tensor<8xi32>, %t: tensor<8x64xi32>) -> tensor<8x32x1x128xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<8xi32>) block_table(%t : tensor<8x64xi32>)
      {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<8x32x1x128xbf16>, tensor<512x8x16x128xbf16>, tensor<512x8x16x128xbf16> -> tensor<8x32x1x128xbf16>
  return %o : tensor<8x32x1x128xbf16>
}
