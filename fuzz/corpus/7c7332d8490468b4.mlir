func.func @bottom_right_dqk_ne_dv(%q: tensor<1x4x100x192xbf16>, %k: tensor<1x4x700x192xbf16>, %v: tensor<1x4x700x128xbf16>) -> tensor<1x4x100x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x100x192xbf16>, tensor<1x4x700x192xbf16> -> tensor<1x4x100x700xf32>
  %t = attn.scale %s {factor = 0.0721687824 : f32} : tensor<1x4x100x700xf32>
  %m = attn.mask %t {kind = #attn.mask<causal, bottom_right>} : tensor<1x4x100x700xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x4x100x700xf32> -> tensor<1x4x100x700xbf16>
  %o = attn.matmul %p, %v : tensor<1x4x100x700xbf16>, tensor<1x4x700x128xbf16> -> tensor<1x4x100x128xbf16>
  return %o : tensor<1x4x100x128xbf16>
}
