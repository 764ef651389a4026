func.func @decode(%q: tensor<6x32x2x128xbf16>, %k: tensor<6x8x6000x128xbf16>, %v: tensor<6x8x6000x128xbf16>,
                  %len: tensor<6xi32>, %s: tensor<32xf32>) -> (tensor<6x32x2x128xbf16>, tensor<6x32x2xf32>) {
  %o, %lse = attn.flash %q, %k, %v lengths(%len : tensor<6xi32>) sinks(%s : tensor<32xf32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<6x32x2x128xbf16>, tensor<6x8x6000x128xbf16>, tensor<6x8x6000x128xbf16> -> tensor<6x32x2x128xbf16>, tensor<6x32x2xf32>
  return %o, %lse : tensor<6x32x2x128xbf16>, tensor<6x32x2xf32>
}
