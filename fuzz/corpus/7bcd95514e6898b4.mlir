func.func @softcap_then_causal(%q: tensor<1x2x32x256xbf16>, %k: tensor<1x2x32x256xbf16>, %v: tensor<1x2x32x256xbf16>) -> tensor<1x2x32x256xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x256xbf16>, tensor<1x2x32x256xbf16> -> tensor<1x2x32x32xf32>
  %t = attn.scale %s {factor = 0.0625 : f32} : tensor<1x2x32x32xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 50.0 : f32
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x32x32xf32>
  %m = attn.mask %c {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x256xbf16> -> tensor<1x2x32x256xbf16>
  return %o : tensor<1x2x32x256xbf16>
}
