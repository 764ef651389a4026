func.func @different_corners(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x32x16xbf16>, %v: tensor<1x2x32x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x16x32xf32>
  %a = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x2x16x32xf32>
  %b = attn.mask %a {kind = #attn.mask<window = [4, 0], bottom_right>} : tensor<1x2x16x32xf32>
  %p = attn.softmax %b {dim = 3} : tensor<1x2x16x32xf32> -> tensor<1x2x16x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x32xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
