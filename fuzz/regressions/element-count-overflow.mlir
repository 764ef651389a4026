func.func @f(%s: tensor<65536x65536x65536x65536xf32>) -> tensor<65536x65536x65536x65536xf32> {
  %t = attn.scale %s {factor = 2.0 : f32} : tensor<65536x65536x65536x65536xf32>
  return %t : tensor<65536x65536x65536x65536xf32>
}
