func.func @bits_of_the_score(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %i = arith.bitcast %score : f32 to i32
    %y = arith.bitcast %i : i32 to f32
    attn.yield %y : f32
  } : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}
