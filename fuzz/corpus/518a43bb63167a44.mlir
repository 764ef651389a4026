func.func @dynamic(%x: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  %y = attn.kernel "scale" in_place(%x) : (tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  ^bb0(%a: tensor<1x2x?x8xf32>):
    %b = attn.scale %a {factor = 2.0 : f32} : tensor<1x2x?x8xf32>
    attn.yield %b : tensor<1x2x?x8xf32>
  }
  return %y : tensor<1x2x?x8xf32>
}
