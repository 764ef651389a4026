// The prefill grid's shape hd256, S=16384, causal (B*S = 16k, H*D = 2048).
func.func @prefill(%q: tensor<1x8x16384x256xbf16>, %k: tensor<1x8x16384x256xbf16>, %v: tensor<1x8x16384x256xbf16>) -> tensor<1x8x16384x256xbf16> {
  %o = attn.flash %q, %k, %v {mask = #attn.mask<causal>, scale = 0.0625 : f32} : tensor<1x8x16384x256xbf16>, tensor<1x8x16384x256xbf16>, tensor<1x8x16384x256xbf16> -> tensor<1x8x16384x256xbf16>
  return %o : tensor<1x8x16384x256xbf16>
}
