func.func @softmax_of_argument(%s: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
