func.func @bias_broadcast(%q: tensor<2x4x129x64xbf16>, %k: tensor<2x2x300x64xbf16>, %v: tensor<2x2x300x64xbf16>, %bias: tensor<1x4x129x300xbf16>) -> tensor<2x4x129x64xbf16> {
  %o = attn.flash %q, %k, %v bias(%bias : tensor<1x4x129x300xbf16>) {scale = 0.125 : f32, mask = #attn.mask<bias>} : tensor<2x4x129x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16> -> tensor<2x4x129x64xbf16>
  return %o : tensor<2x4x129x64xbf16>
}
