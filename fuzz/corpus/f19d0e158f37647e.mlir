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

func.func @captures(%s: tensor<2x8x128x128xf32>, %slopes: tensor<8xf32>, %rel: tensor<255xbf16>) -> tensor<2x8x128x128xf32> {
  %c = attn.score_mod %s captures(%slopes, %rel : tensor<8xf32>, tensor<255xbf16>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %slope_t: tensor<8xf32>, %rel_t: tensor<255xbf16>):
    %slope = tensor.extract %slope_t[%h] : tensor<8xf32>
    %off = arith.constant 127 : index
    %d = arith.subi %i, %j : index
    %k = arith.addi %d, %off : index
    %r16 = tensor.extract %rel_t[%k] : tensor<255xbf16>
    %r = arith.extf %r16 : bf16 to f32
    %y0 = arith.mulf %slope, %r : f32
    %y = arith.addf %x, %y0 : f32
    attn.yield %y : f32
  } : tensor<2x8x128x128xf32>
  return %c : tensor<2x8x128x128xf32>
}

func.func @integer_ops(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %two = arith.constant 2 : index
    %odd = arith.remui %j, %two : index
    %w = arith.index_cast %odd : index to i64
    %sh = arith.shrsi %w, %w : i64
    %lt = arith.cmpi ult, %i, %j : index
    %e = arith.extsi %lt : i1 to i32
    %f = arith.sitofp %e : i32 to f32
    %y = arith.addf %x, %f : f32
    attn.yield %y : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
