func.func @softcap(%q: tensor<2x8x511x128xbf16>, %k: tensor<2x4x511x128xbf16>, %v: tensor<2x4x511x128xbf16>) -> tensor<2x8x511x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.5 : f32, mask = #attn.mask<causal>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<2x8x511x128xbf16>, tensor<2x4x511x128xbf16>, tensor<2x4x511x128xbf16> -> tensor<2x8x511x128xbf16>
  return %o : tensor<2x8x511x128xbf16>
}
