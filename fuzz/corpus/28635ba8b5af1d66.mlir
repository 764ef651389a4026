func.func @alibi(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %one = arith.constant 1 : index
    %h1 = arith.addi %h, %one : index
    %hi = arith.index_cast %h1 : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %r = arith.constant -2.0 : f32
    %e = arith.mulf %hf, %r : f32
    %slope = math.exp2 %e : f32
    %d = arith.subi %kv_idx, %q_idx : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %b2 = arith.mulf %slope, %df : f32
    %y = arith.addf %score, %b2 : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}
