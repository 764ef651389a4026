func.func @bits_of_a_constant(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %c = arith.constant 1056964608 : i32
    %a = arith.bitcast %c : i32 to f32
    %y = arith.addf %score, %a : f32
    attn.yield %y : f32
  } : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}
