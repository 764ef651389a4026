func.func @decode(%q: tensor<8x32x1x128xbf16>, %kc: tensor<512x8x16x128xbf16>, %vc: tensor<512x8x16x128xbf16>,
                  %len: tensor<8xi32>, %table: tensor<8x64xi32>) -> tensor<8x32x1x128xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<8xi32>) block_table(%table : tensor<8x64xi32>)
      {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<8x32x1x128xbf16>, tensor<512x8x16x128xbf16>, tensor<512x8x16x128xbf16> -> tensor<8x32x1x128xbf16>
  return %o : tensor<8x32x1x128xbf16>
}

func.func @prefill_dynamic(%q: tensor<?x4x100x64xf16>, %kc: tensor<?x4x128x64xf16>, %len: tensor<?xi32>,
                           %bias: tensor<1x4x1x256xf32>, %s: tensor<4xf32>, %table: tensor<?x2xi32>) -> tensor<?x4x100x64xf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<?xi32>) bias(%bias : tensor<1x4x1x256xf32>) sinks(%s : tensor<4xf32>)
      block_table(%table : tensor<?x2xi32>) {scale = 0.125 : f32, mask = #attn.mask<key_padding, bias>}
    : tensor<?x4x100x64xf16>, tensor<?x4x128x64xf16>, tensor<?x4x128x64xf16> -> tensor<?x4x100x64xf16>
  return %o : tensor<?x4x100x64xf16>
}
