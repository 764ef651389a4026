func.func @rank5_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<1x1x1x1x2xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s captures(%t : tensor<1x1x1x1x2xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<1x1x1x1x2xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
