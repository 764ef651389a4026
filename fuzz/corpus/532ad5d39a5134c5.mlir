func.func @decode(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.0883883461 : f32}
    : tensor<2x8x1x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}
