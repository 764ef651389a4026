func.func @heads_do_not_divide(%q: tensor<1x6x8x64xbf16>, %k: tensor<1x4x8x64xbf16>) -> tensor<1x6x8x8xf32> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x6x8x64xbf16>, tensor<1x4x8x64xbf16> -> tensor<1x6x8x8xf32>
  return %s : tensor<1x6x8x8xf32>
}
