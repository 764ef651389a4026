func.func @step(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x2x300x64xbf16>, %v: tensor<2x2x300x64xbf16>,
    %bias: tensor<2x4x200x300xf32>) -> tensor<2x4x200x64xbf16> {
  %o = attn.flash %q, %k, %v bias(%bias : tensor<2x4x200x300xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bias>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<2x4x200x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
