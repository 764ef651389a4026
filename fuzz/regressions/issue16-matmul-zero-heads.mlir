func.func @f(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x0x64x64xbf16>) -> tensor<1x4x64x64xf32> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x64x64xbf16>, tensor<1x0x64x64xbf16> -> tensor<1x4x64x64xf32>
  return %s : tensor<1x4x64x64xf32>
}
