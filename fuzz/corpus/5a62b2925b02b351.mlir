func.func @kept(%q: tensor<2x8x1x64xbf16>, %q2: tensor<2x8x2x64xbf16>, %k: tensor<2x2x100x64xbf16>) -> (tensor<2x8x1x64xbf16>, tensor<2x8x2x64xbf16>) {
  %o = attn.flash %q, %k, %k {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<2x8x1x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x1x64xbf16>
  %o2 = attn.flash %q2, %k, %k {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x8x2x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x2x64xbf16>
  return %o, %o2 : tensor<2x8x1x64xbf16>, tensor<2x8x2x64xbf16>
}
