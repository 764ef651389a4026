func.func @f(%s: tensor<1x1x4x0xf32>) -> tensor<1x1x4x0xf32> {
  %p = attn.softmax %s {dim = 3} : tensor<1x1x4x0xf32> -> tensor<1x1x4x0xf32>
  return %p : tensor<1x1x4x0xf32>
}
