func.func @causal_softcap(%q: tensor<1x2x64x32xbf16>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>, %len: tensor<1xi32>) -> tensor<1x2x64x32xbf16> {
  %cap = arith.constant 30.0 : f32
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x2x64x64xf32>
  %t = attn.scale %s {factor = 0.17 : f32} : tensor<1x2x64x64xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xf32>
  %m = attn.mask %c lengths(%len : tensor<1xi32>) {kind = #attn.mask<causal, key_padding>} : tensor<1x2x64x64xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
  %w = arith.truncf %p : tensor<1x2x64x64xf32> to tensor<1x2x64x64xbf16>
  %o = attn.matmul %w, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x2x64x32xbf16>
  return %o : tensor<1x2x64x32xbf16>
}
