func.func @integer_operands(%a: tensor<8x16xi32>, %b: tensor<16x8xi32>) -> tensor<8x8xi32> {
  %c = attn.matmul %a, %b : tensor<8x16xi32>, tensor<16x8xi32> -> tensor<8x8xi32>
  return %c : tensor<8x8xi32>
}
