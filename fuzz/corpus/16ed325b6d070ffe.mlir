func.func @hd112(%q: tensor<1x2x190x112xbf16>, %k: tensor<1x2x190x112xbf16>, %v: tensor<1x2x190x112xbf16>) -> tensor<1x2x190x112xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x190x112xbf16>, tensor<1x2x190x112xbf16> -> tensor<1x2x190x190xf32>
  %t = attn.scale %s {factor = 0.0944911 : f32} : tensor<1x2x190x190xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x190x190xf32> -> tensor<1x2x190x190xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x190x190xbf16>, tensor<1x2x190x112xbf16> -> tensor<1x2x190x112xbf16>
  return %o : tensor<1x2x190x112xbf16>
}
