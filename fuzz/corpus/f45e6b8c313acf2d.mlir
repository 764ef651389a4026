func.func @scale_split_over_q_and_k(%q: tensor<1x2x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x2x16x64xf16> {
  %qs = attn.scale %q {factor = 0.353553385 : f32} : tensor<1x2x16x64xf16>
  %ks = attn.scale %k {factor = 0.353553385 : f32} : tensor<1x2x16x64xf16>
  %s = attn.matmul %qs, %ks {transpose_rhs} : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x2x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x64xf16> -> tensor<1x2x16x64xf16>
  return %o : tensor<1x2x16x64xf16>
}
