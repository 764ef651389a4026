// The prefill grid's shape hd256, S=2048 (B*S = 16k, H*D = 2048).
func.func @prefill(%q: tensor<8x8x2048x256xbf16>, %k: tensor<8x8x2048x256xbf16>, %v: tensor<8x8x2048x256xbf16>) -> tensor<8x8x2048x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<8x8x2048x256xbf16>, tensor<8x8x2048x256xbf16>, tensor<8x8x2048x256xbf16> -> tensor<8x8x2048x256xbf16>
  return %o : tensor<8x8x2048x256xbf16>
}
