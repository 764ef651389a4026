func.func @self(%q: tensor<1x1x8x16xbf16>) -> tensor<1x1x8x8xf32> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16> -> tensor<1x1x8x8xf32>
  return %s : tensor<1x1x8x8xf32>
}
