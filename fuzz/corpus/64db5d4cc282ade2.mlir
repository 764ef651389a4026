func.func @used_elsewhere(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  %o2 = attn.flash %o, %q, %q {scale = 0.125 : f32} : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o2 : tensor<1x1x16x64xbf16>
}
