func.func @two_scales(%q: tensor<1x1x16x16xbf16>, %k: tensor<1x1x16x16xbf16>, %v: tensor<1x1x16x16xbf16>) -> tensor<1x1x16x16xbf16> {
  %qs = attn.scale %q {factor = 0.5 : f32} : tensor<1x1x16x16xbf16>
  %s = attn.matmul %qs, %k {transpose_rhs} : tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16> -> tensor<1x1x16x16xf32>
  %t = attn.scale %s {factor = 0.2 : f32} : tensor<1x1x16x16xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x1x16x16xf32> -> tensor<1x1x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16> -> tensor<1x1x16x16xbf16>
  return %o : tensor<1x1x16x16xbf16>
}
