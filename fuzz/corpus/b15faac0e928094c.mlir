func.func @concat_queries(%q: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %row: tensor<1x2x1x16xf32>) -> tensor<1x2x17x16xbf16> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %cat = tensor.concat dim(2) %s, %row : (tensor<1x2x16x16xf32>, tensor<1x2x1x16xf32>) -> tensor<1x2x17x16xf32>
  %p = attn.softmax %cat {dim = 3} : tensor<1x2x17x16xf32> -> tensor<1x2x17x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x17x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x17x16xbf16>
  return %o : tensor<1x2x17x16xbf16>
}
