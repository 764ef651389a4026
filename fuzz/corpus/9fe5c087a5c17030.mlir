func.func @missing_factor(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %t = attn.scale %s : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}
