func.func @scores_reused(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xf32>) {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %t = attn.scale %s {factor = 0.25 : f32} : tensor<1x2x16x16xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o, %t : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xf32>
}
