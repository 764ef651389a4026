func.func @hd128_causal_gqa(%q: tensor<2x8x777x128xbf16>, %k: tensor<2x2x777x128xbf16>, %v: tensor<2x2x777x128xbf16>) -> tensor<2x8x777x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.08838834764831843 : f32, mask = #attn.mask<causal>} : tensor<2x8x777x128xbf16>, tensor<2x2x777x128xbf16>, tensor<2x2x777x128xbf16> -> tensor<2x8x777x128xbf16>
  return %o : tensor<2x8x777x128xbf16>
}
