func.func @score_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f16, %b: index, %h: index, %i: index, %j: index):
    %y = arith.extf %x : f16 to f32
    attn.yield %y : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
