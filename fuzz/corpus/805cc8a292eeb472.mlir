func.func @ranks(%x: tensor<3x5x7xf32>, %a: tensor<3x7xf32>, %b: tensor<3x5xf32>) -> (tensor<3x5x7xf32>, tensor<7x5xf32>) {
  %p = attn.softmax %x {dim = 1} : tensor<3x5x7xf32> -> tensor<3x5x7xf32>
  %m = attn.matmul %a, %b {transpose_lhs} : tensor<3x7xf32>, tensor<3x5xf32> -> tensor<7x5xf32>
  return %p, %m : tensor<3x5x7xf32>, tensor<7x5xf32>
}
