func.func @hd256(%q: tensor<4x8x2048x256xbf16>, %k: tensor<4x8x2048x256xbf16>, %v: tensor<4x8x2048x256xbf16>) -> tensor<4x8x2048x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<4x8x2048x256xbf16>, tensor<4x8x2048x256xbf16>, tensor<4x8x2048x256xbf16> -> tensor<4x8x2048x256xbf16>
  return %o : tensor<4x8x2048x256xbf16>
}
