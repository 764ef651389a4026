func.func @scale_huge(%s: tensor<2147483648xf32>) -> tensor<2147483648xf32> {
  %t = attn.scale %s {factor = 2.0 : f32} : tensor<2147483648xf32>
  return %t : tensor<2147483648xf32>
}
