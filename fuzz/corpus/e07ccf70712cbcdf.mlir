func.func @score_mod_signature(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} score_mod {
  ^bb0(%x: bf16, %b: index, %h: index, %i: index, %j: index):
    %y = arith.extf %x : bf16 to f32
    attn.yield %y : f32
  } : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}
