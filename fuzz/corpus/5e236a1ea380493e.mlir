func.func @decode(%q: tensor<4x32x1x128xbf16>, %k: tensor<4x8x3000x128xbf16>, %v: tensor<4x8x3000x128xbf16>, %s: tensor<32xf32>)
    -> (tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>) {
  %o, %lse = attn.flash %q, %k, %v sinks(%s : tensor<32xf32>) {scale = 0.0883883476 : f32}
    : tensor<4x32x1x128xbf16>, tensor<4x8x3000x128xbf16>, tensor<4x8x3000x128xbf16> -> tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
  return %o, %lse : tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
}
