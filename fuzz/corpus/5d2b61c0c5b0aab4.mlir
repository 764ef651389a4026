func.func @select_fills_zero(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %keep: tensor<1x2x16x16xi1>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x2x16x16xf32>
  %m = arith.select %keep, %s, %zero : tensor<1x2x16x16xi1>, tensor<1x2x16x16xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
