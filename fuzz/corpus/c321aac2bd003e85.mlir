func.func @shape(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x4xbf16> {
  %p = attn.softmax %s {dim = 3} : tensor<1x1x8x8xf32> -> tensor<1x1x8x4xbf16>
  return %p : tensor<1x1x8x4xbf16>
}
