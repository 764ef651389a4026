func.func @extract_not_a_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %e = tensor.extract %t[%j] : tensor<8xf32>
    %y = arith.addf %x, %e : f32
    attn.yield %y : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
