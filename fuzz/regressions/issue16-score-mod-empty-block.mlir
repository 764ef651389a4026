func.func @f(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = "attn.score_mod"(%s) ({
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
  }) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
