func.func @negative_dim(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %p = attn.softmax %s {dim = -5} : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32>
  return %p : tensor<1x1x8x8xf32>
}
