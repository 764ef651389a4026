func.func @softcap(%s: tensor<2x8x128x128xf32>) -> tensor<2x8x128x128xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 50.0 : f32
    %d = arith.divf %x, %cap : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %cap : f32
    attn.yield %y : f32
  } : tensor<2x8x128x128xf32>
  return %c : tensor<2x8x128x128xf32>
}

func.func @alibi(%s: tensor<2x8x128x128xf32>) -> tensor<2x8x128x128xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %one = arith.constant 1 : index
    %h1 = arith.addi %h, %one : index
    %hi = arith.index_cast %h1 : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %m8 = arith.constant -1.0 : f32
    %slope = math.exp2 %m8 : f32
    %sl = arith.mulf %slope, %hf : f32
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i64
    %df = arith.sitofp %di : i64 to f32
    %bias = arith.mulf %sl, %df : f32
    %y = arith.addf %x, %bias : f32
    attn.yield %y : f32
  } : tensor<2x8x128x128xf32>
  return %c : tensor<2x8x128x128xf32>
}
