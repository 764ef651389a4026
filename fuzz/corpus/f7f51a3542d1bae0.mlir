func.func @elements_overflow(%x: tensor<65536x65536x65536x65536xf32>) -> tensor<65536x65536x65536x65536xf32> {
  %y = attn.kernel "scale" in_place(%x) : (tensor<65536x65536x65536x65536xf32>) -> tensor<65536x65536x65536x65536xf32> {
  ^bb0(%a: tensor<65536x65536x65536x65536xf32>):
    %b = attn.scale %a {factor = 2.0 : f32} : tensor<65536x65536x65536x65536xf32>
    attn.yield %b : tensor<65536x65536x65536x65536xf32>
  }
  return %y : tensor<65536x65536x65536x65536xf32>
}
