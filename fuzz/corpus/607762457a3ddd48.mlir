func.func @decode(%q: tensor<8x32x1x128xbf16>, %kc: tensor<600x8x16x128xbf16>, %vc: tensor<600x8x16x128xbf16>,
                  %len: tensor<8xi32>, %table: tensor<8x64xi32>) -> (tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>) {
  %o, %lse = attn.flash %q, %kc, %vc lengths(%len : tensor<8xi32>) block_table(%table : tensor<8x64xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<8x32x1x128xbf16>, tensor<600x8x16x128xbf16>, tensor<600x8x16x128xbf16> -> tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>
  return %o, %lse : tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>
}
