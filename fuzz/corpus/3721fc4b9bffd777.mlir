func.func @bshd_strided(%q: tensor<2x4x300x128xbf16>, %k: tensor<2x4x300x128xbf16>, %v: tensor<2x4x300x128xbf16>) -> tensor<2x4x300x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x300x128xbf16>, tensor<2x4x300x128xbf16> -> tensor<2x4x300x300xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x4x300x300xf32>
  %k2 = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x4x300x300xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x300x300xf32> -> tensor<2x4x300x300xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x300x300xbf16>, tensor<2x4x300x128xbf16> -> tensor<2x4x300x128xbf16>
  return %o : tensor<2x4x300x128xbf16>
}
