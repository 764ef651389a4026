func.func @seq7_mqa(%q: tensor<2x4x7x64xbf16>, %k: tensor<2x1x7x64xbf16>, %v: tensor<2x1x7x64xbf16>) -> tensor<2x4x7x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<2x4x7x64xbf16>, tensor<2x1x7x64xbf16>, tensor<2x1x7x64xbf16> -> tensor<2x4x7x64xbf16>
  return %o : tensor<2x4x7x64xbf16>
}
