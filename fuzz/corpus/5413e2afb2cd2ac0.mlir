func.func @softcap(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %score, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}
