func.func @result_shape(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x4x16x64xbf16>) -> tensor<2x4x8x8xf32> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x8x64xbf16>, tensor<2x4x16x64xbf16> -> tensor<2x4x8x8xf32>
  return %s : tensor<2x4x8x8xf32>
}
