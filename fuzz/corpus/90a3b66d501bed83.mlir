func.func @unsupported_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %n = arith.index_cast %i : index to i32
    %t = arith.trunci %n : i32 to i8
    %e = arith.extsi %t : i8 to i32
    %f = arith.sitofp %e : i32 to f32
    attn.yield %f : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
