func.func @hd192x128(%q: tensor<2x4x513x192xbf16>, %k: tensor<2x4x513x192xbf16>, %v: tensor<2x4x513x128xbf16>) -> tensor<2x4x513x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.07216878364870323 : f32, mask = #attn.mask<causal>} : tensor<2x4x513x192xbf16>, tensor<2x4x513x192xbf16>, tensor<2x4x513x128xbf16> -> tensor<2x4x513x128xbf16>
  return %o : tensor<2x4x513x128xbf16>
}
