// The prefill grid's shape hd256, S=1024 (B*S = 16k, H*D = 2048).
func.func @prefill(%q: tensor<16x8x1024x256xbf16>, %k: tensor<16x8x1024x256xbf16>, %v: tensor<16x8x1024x256xbf16>) -> tensor<16x8x1024x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<16x8x1024x256xbf16>, tensor<16x8x1024x256xbf16>, tensor<16x8x1024x256xbf16> -> tensor<16x8x1024x256xbf16>
  return %o : tensor<16x8x1024x256xbf16>
}
