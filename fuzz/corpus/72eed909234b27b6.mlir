func.func @negative_scale_after_mask(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x2x16x16xf32>
  %t = attn.scale %m {factor = -1.0 : f32} : tensor<1x2x16x16xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
