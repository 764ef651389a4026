func.func @keep(%q: tensor<2x4x257x64xbf16>, %k: tensor<2x4x255x64xbf16>, %v: tensor<2x4x255x64xbf16>, %keep: tensor<2x1x257x255xi1>) -> tensor<2x4x257x64xbf16> {
  %o = attn.flash %q, %k, %v keep(%keep : tensor<2x1x257x255xi1>) {scale = 0.125 : f32, mask = #attn.mask<keep>} : tensor<2x4x257x64xbf16>, tensor<2x4x255x64xbf16>, tensor<2x4x255x64xbf16> -> tensor<2x4x257x64xbf16>
  return %o : tensor<2x4x257x64xbf16>
}
