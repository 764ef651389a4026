func.func @softcap_padding_backward(%q: tensor<2x8x512x256xbf16>, %k: tensor<2x8x512x256xbf16>,
                                    %v: tensor<2x8x512x256xbf16>, %lengths: tensor<2xi32>)
    -> tensor<2x8x512x256xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs}
      : tensor<2x8x512x256xbf16>, tensor<2x8x512x256xbf16> -> tensor<2x8x512x512xf32>
  %t = attn.scale %s {factor = 0.0625 : f32} : tensor<2x8x512x512xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 50.0 : f32
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<2x8x512x512xf32>
  %m = attn.mask %c lengths(%lengths : tensor<2xi32>) {kind = #attn.mask<causal, key_padding>}
      : tensor<2x8x512x512xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x8x512x512xf32> -> tensor<2x8x512x512xbf16>
  %o = attn.matmul %p, %v
      : tensor<2x8x512x512xbf16>, tensor<2x8x512x256xbf16> -> tensor<2x8x512x256xbf16>
  return %o : tensor<2x8x512x256xbf16>
}
