func.func @head_dim_not_multiple_of_8(%q: tensor<1x1x64x100xbf16>, %k: tensor<1x1x64x100xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.1 : f32} : tensor<1x1x64x100xbf16>, tensor<1x1x64x100xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
