func.func @float_ops(%q: tensor<1x4x96x64xf16>, %k: tensor<1x4x96x64xf16>, %v: tensor<1x4x96x64xf16>) -> tensor<1x4x96x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x96x64xf16>, tensor<1x4x96x64xf16> -> tensor<1x4x96x96xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x4x96x96xf32>
  %m = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.subi %i, %j : index
    %di = arith.index_cast %d : index to i64
    %df = arith.sitofp %di : i64 to f32
    %c = arith.constant 0.03125 : f32
    %u = arith.mulf %df, %c : f32
    %th = math.tanh %x : f32
    %er = math.erf %u : f32
    %ab = math.absf %u : f32
    %l1 = math.log1p %ab : f32
    %sq = math.sqrt %ab : f32
    %ex = math.exp2 %th : f32
    %mx = arith.maximumf %er, %th : f32
    %fm = math.fma %mx, %l1, %sq : f32
    %a0 = arith.addf %x, %fm : f32
    %y = arith.subf %a0, %ex : f32
    attn.yield %y : f32
  } : tensor<1x4x96x96xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x4x96x96xf32> -> tensor<1x4x96x96xf16>
  %o = attn.matmul %p, %v : tensor<1x4x96x96xf16>, tensor<1x4x96x64xf16> -> tensor<1x4x96x64xf16>
  return %o : tensor<1x4x96x64xf16>
}
