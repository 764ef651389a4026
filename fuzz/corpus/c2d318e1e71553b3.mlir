func.func @too_many_captures(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s captures(%t, %t, %t, %t, %t : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t0: tensor<8xf32>, %t1: tensor<8xf32>, %t2: tensor<8xf32>, %t3: tensor<8xf32>, %t4: tensor<8xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
