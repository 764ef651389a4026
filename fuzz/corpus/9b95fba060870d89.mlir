func.func @result_rank(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<1x8x8xf32> {
  %c = attn.matmul %a, %b : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<1x8x8xf32>
  return %c : tensor<1x8x8xf32>
}
