func.func @column_argument(%q: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %col: tensor<1x2x16x1xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %cat = tensor.concat dim(3) %s, %col : (tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>) -> tensor<1x2x16x17xf32>
  %p = attn.softmax %cat {dim = 3} : tensor<1x2x16x17xf32> -> tensor<1x2x16x17xbf16>
  %pk = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 16, 16] [1, 1, 1, 1] : tensor<1x2x16x17xbf16> to tensor<1x2x16x16xbf16>
  %o = attn.matmul %pk, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
