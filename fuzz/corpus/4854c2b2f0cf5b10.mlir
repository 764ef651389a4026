func.func @graph(%s: tensor<1x4x16x16xf32>, %bias: tensor<4xf32>) -> tensor<1x4x16x16xf32> {
  %m = attn.score_mod %s captures(%bias : tensor<4xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bias_t: tensor<4xf32>):
    %hb = tensor.extract %bias_t[%h] : tensor<4xf32>
    %y = arith.addf %x, %hb : f32
    attn.yield %y : f32
  } : tensor<1x4x16x16xf32>
  return %m : tensor<1x4x16x16xf32>
}
