func.func @operand_from_the_body(%a: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "scale"(%a) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %c = arith.constant dense<1.0> : tensor<1x1x8x8xf32>
    %r = attn.scale %c {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %r : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
