// The prefill grid's shape hd256, S=4096, causal (B*S = 16k, H*D = 2048).
func.func @prefill(%q: tensor<4x8x4096x256xbf16>, %k: tensor<4x8x4096x256xbf16>, %v: tensor<4x8x4096x256xbf16>) -> tensor<4x8x4096x256xbf16> {
  %o = attn.flash %q, %k, %v {mask = #attn.mask<causal>, scale = 0.0625 : f32} : tensor<4x8x4096x256xbf16>, tensor<4x8x4096x256xbf16>, tensor<4x8x4096x256xbf16> -> tensor<4x8x4096x256xbf16>
  return %o : tensor<4x8x4096x256xbf16>
}
