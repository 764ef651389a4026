func.func @softcap(%q: tensor<2x4x256x128xbf16>, %k: tensor<2x4x256x128xbf16>, %v: tensor<2x4x256x128xbf16>) -> tensor<2x4x256x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x256x128xbf16>, tensor<2x4x256x128xbf16> -> tensor<2x4x256x256xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x4x256x256xf32>
  %m = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %c : f32
    attn.yield %y : f32
  } : tensor<2x4x256x256xf32>
  %k2 = attn.mask %m {kind = #attn.mask<causal>} : tensor<2x4x256x256xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x256x256xf32> -> tensor<2x4x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x256x256xbf16>, tensor<2x4x256x128xbf16> -> tensor<2x4x256x128xbf16>
  return %o : tensor<2x4x256x128xbf16>
}
