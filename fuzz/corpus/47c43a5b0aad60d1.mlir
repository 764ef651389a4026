func.func @unsupported_constant(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.constant 1.0 : f64
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
