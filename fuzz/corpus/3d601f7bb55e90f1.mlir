func.func @gqa(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>, %v: tensor<2x2x128x64xbf16>) -> tensor<2x8x128x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16> -> tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}
