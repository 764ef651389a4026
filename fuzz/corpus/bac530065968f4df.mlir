func.func @result_element(%a: tensor<8x16xf16>, %b: tensor<16x8xf16>) -> tensor<8x8xbf16> {
  %c = attn.matmul %a, %b : tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xbf16>
  return %c : tensor<8x8xbf16>
}
