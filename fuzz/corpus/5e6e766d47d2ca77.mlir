func.func @hd128(%q: tensor<4x8x2048x128xbf16>, %k: tensor<4x8x2048x128xbf16>, %v: tensor<4x8x2048x128xbf16>) -> tensor<4x8x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32} : tensor<4x8x2048x128xbf16>, tensor<4x8x2048x128xbf16>, tensor<4x8x2048x128xbf16> -> tensor<4x8x2048x128xbf16>
  return %o : tensor<4x8x2048x128xbf16>
}
