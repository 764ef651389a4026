func.func @scale(%s: tensor<2x8x128x256xf32>, %q: tensor<4x64xbf16>) -> (tensor<2x8x128x256xf32>, tensor<4x64xbf16>) {
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x8x128x256xf32>
  %u = attn.scale %q {factor = -2.0 : f32} : tensor<4x64xbf16>
  return %t, %u : tensor<2x8x128x256xf32>, tensor<4x64xbf16>
}
