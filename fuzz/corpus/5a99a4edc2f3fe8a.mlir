func.func @hd48_br(%q: tensor<2x2x100x48xbf16>, %k: tensor<2x2x300x48xbf16>, %v: tensor<2x2x300x48xbf16>) -> tensor<2x2x100x48xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x100x48xbf16>, tensor<2x2x300x48xbf16> -> tensor<2x2x100x300xf32>
  %t = attn.scale %s {factor = 0.1443376 : f32} : tensor<2x2x100x300xf32>
  %m = attn.mask %t {kind = #attn.mask<causal, bottom_right>} : tensor<2x2x100x300xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x100x300xf32> -> tensor<2x2x100x300xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x100x300xbf16>, tensor<2x2x300x48xbf16> -> tensor<2x2x100x48xbf16>
  return %o : tensor<2x2x100x48xbf16>
}
