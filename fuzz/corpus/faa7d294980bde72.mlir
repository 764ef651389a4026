func.func @softcap(%q: tensor<1x2x130x40xbf16>, %k: tensor<1x2x130x40xbf16>, %v: tensor<1x2x130x40xbf16>) -> tensor<1x2x130x40xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x130x40xbf16>, tensor<1x2x130x40xbf16> -> tensor<1x2x130x130xbf16>
  %f = arith.extf %s : tensor<1x2x130x130xbf16> to tensor<1x2x130x130xf32>
  %c = attn.score_mod %f {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 5.0 : f32
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x130x130xf32>
  %p = attn.softmax %c {dim = -1} : tensor<1x2x130x130xf32> -> tensor<1x2x130x130xf32>
  %w = arith.truncf %p : tensor<1x2x130x130xf32> to tensor<1x2x130x130xbf16>
  %o = attn.matmul %w, %v : tensor<1x2x130x130xbf16>, tensor<1x2x130x40xbf16> -> tensor<1x2x130x40xbf16>
  return %o : tensor<1x2x130x40xbf16>
}
