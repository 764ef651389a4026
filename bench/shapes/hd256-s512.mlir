// The prefill grid's shape hd256, S=512 (B*S = 16k, H*D = 2048).
func.func @prefill(%q: tensor<32x8x512x256xbf16>, %k: tensor<32x8x512x256xbf16>, %v: tensor<32x8x512x256xbf16>) -> tensor<32x8x512x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<32x8x512x256xbf16>, tensor<32x8x512x256xbf16>, tensor<32x8x512x256xbf16> -> tensor<32x8x512x256xbf16>
  return %o : tensor<32x8x512x256xbf16>
}
