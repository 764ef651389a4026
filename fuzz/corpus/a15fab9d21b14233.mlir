func.func @hd96(%q: tensor<4x8x2048x96xbf16>, %k: tensor<4x8x2048x96xbf16>, %v: tensor<4x8x2048x96xbf16>) -> tensor<4x8x2048x96xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.1 : f32} : tensor<4x8x2048x96xbf16>, tensor<4x8x2048x96xbf16>, tensor<4x8x2048x96xbf16> -> tensor<4x8x2048x96xbf16>
  return %o : tensor<4x8x2048x96xbf16>
}
