func.func @f64_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf64>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s captures(%t : tensor<8xf64>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<8xf64>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
