func.func @operand_count(%a: tensor<1x1x8x8xf32>, %b: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "scale"(%a, %b) : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>, %y: tensor<1x1x8x8xf32>):
    %r = attn.scale %y {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %r : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
