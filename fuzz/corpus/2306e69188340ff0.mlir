func.func @causal_bottom_right_empty_rows(%q: tensor<2x4x700x64xbf16>, %k: tensor<2x4x300x64xbf16>, %v: tensor<2x4x300x64xbf16>) -> tensor<2x4x700x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>} : tensor<2x4x700x64xbf16>, tensor<2x4x300x64xbf16>, tensor<2x4x300x64xbf16> -> tensor<2x4x700x64xbf16>
  return %o : tensor<2x4x700x64xbf16>
}
