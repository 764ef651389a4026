func.func @rank_one(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %c = attn.matmul %a, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %c : tensor<8xf32>
}
