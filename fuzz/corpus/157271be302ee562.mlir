func.func @rank(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %x : f32
  } : tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
