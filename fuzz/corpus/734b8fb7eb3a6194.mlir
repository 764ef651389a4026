func.func @element_types(%a: tensor<8x16xf16>, %b: tensor<16x8xbf16>) -> tensor<8x8xf32> {
  %c = attn.matmul %a, %b : tensor<8x16xf16>, tensor<16x8xbf16> -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
