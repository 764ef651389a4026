func.func @hd64x128(%q: tensor<2x4x150x64xbf16>, %k: tensor<2x2x150x64xbf16>, %v: tensor<2x2x150x128xbf16>) -> tensor<2x4x150x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x150x64xbf16>, tensor<2x2x150x64xbf16> -> tensor<2x4x150x150xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<2x4x150x150xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x4x150x150xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x150x150xf32> -> tensor<2x4x150x150xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x150x150xbf16>, tensor<2x2x150x128xbf16> -> tensor<2x4x150x128xbf16>
  return %o : tensor<2x4x150x128xbf16>
}
