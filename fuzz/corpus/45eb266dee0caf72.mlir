func.func @arg_count(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
