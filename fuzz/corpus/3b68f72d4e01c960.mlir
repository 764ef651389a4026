func.func @scale_on_q(%q: tensor<1x2x16x16xf16>, %k: tensor<1x2x16x16xf16>, %v: tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16> {
  %qs = attn.scale %q {factor = 0.25 : f32} : tensor<1x2x16x16xf16>
  %s = attn.matmul %qs, %k {transpose_rhs} : tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16> -> tensor<1x2x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16> -> tensor<1x2x16x16xf16>
  return %o : tensor<1x2x16x16xf16>
}
