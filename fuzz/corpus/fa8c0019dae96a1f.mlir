func.func @softmax(%s: tensor<2x8x128x256xf32>, %t: tensor<16x4xf32>) -> (tensor<2x8x128x256xbf16>, tensor<16x4xf32>) {
  %p = attn.softmax %s {dim = 3} : tensor<2x8x128x256xf32> -> tensor<2x8x128x256xbf16>
  %r = attn.softmax %t {dim = 0} : tensor<16x4xf32> -> tensor<16x4xf32>
  return %p, %r : tensor<2x8x128x256xbf16>, tensor<16x4xf32>
}
