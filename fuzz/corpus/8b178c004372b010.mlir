func.func @already_fused(%q: tensor<1x1x16x16xbf16>) -> tensor<1x1x16x16xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.25 : f32} : tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16> -> tensor<1x1x16x16xbf16>
  return %o : tensor<1x1x16x16xbf16>
}
