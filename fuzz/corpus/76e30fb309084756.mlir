func.func @rank_mismatch(%a: tensor<2x8x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x8x8xf32> {
  %c = attn.matmul %a, %b : tensor<2x8x16xf32>, tensor<16x8xf32> -> tensor<2x8x8xf32>
  return %c : tensor<2x8x8xf32>
}
