func.func @bad(%q: tensor<1x2x8x64xbf16>, %k: tensor<1x2x8x32xbf16>) -> tensor<1x2x8x8xf32> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x8x64xbf16>, tensor<1x2x8x32xbf16> -> tensor<1x2x8x8xf32>
  return %s : tensor<1x2x8x8xf32>
}
