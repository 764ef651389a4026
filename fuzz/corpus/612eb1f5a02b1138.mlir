func.func @paged(%q: tensor<4x16x1x128xbf16>, %kc: tensor<1200x4x16x128xbf16>, %vc: tensor<1200x4x16x128xbf16>,
                 %len: tensor<4xi32>, %table: tensor<4x300xi32>) -> tensor<4x16x1x128xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x300xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x16x1x128xbf16>, tensor<1200x4x16x128xbf16>, tensor<1200x4x16x128xbf16> -> tensor<4x16x1x128xbf16>
  return %o : tensor<4x16x1x128xbf16>
}
