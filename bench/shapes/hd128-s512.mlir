// The prefill grid's shape hd128, S=512, full (B*S = 16k, H*D = 2048): what
// scripts/device-run.sh ncu profiles.
func.func @prefill(%q: tensor<32x16x512x128xbf16>, %k: tensor<32x16x512x128xbf16>, %v: tensor<32x16x512x128xbf16>) -> tensor<32x16x512x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32} : tensor<32x16x512x128xbf16>, tensor<32x16x512x128xbf16>, tensor<32x16x512x128xbf16> -> tensor<32x16x512x128xbf16>
  return %o : tensor<32x16x512x128xbf16>
}
