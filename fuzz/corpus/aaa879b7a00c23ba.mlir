func.func @nan(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %t = attn.scale %s {factor = 0x7FC00000 : f32} : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}
