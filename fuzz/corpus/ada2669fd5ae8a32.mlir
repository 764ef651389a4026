func.func @causal_top_left_short(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x600x64xbf16>, %v: tensor<2x4x600x64xbf16>) -> tensor<2x4x200x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<2x4x200x64xbf16>, tensor<2x4x600x64xbf16>, tensor<2x4x600x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
