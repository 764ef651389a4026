func.func @hd256(%q: tensor<1x4x333x256xbf16>, %k: tensor<1x4x333x256xbf16>, %v: tensor<1x4x333x256xbf16>) -> tensor<1x4x333x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<1x4x333x256xbf16>, tensor<1x4x333x256xbf16>, tensor<1x4x333x256xbf16> -> tensor<1x4x333x256xbf16>
  return %o : tensor<1x4x333x256xbf16>
}
