// The prefill grid's shape hd64, S=1024, full (B*S = 16k, H*D = 2048): what
// scripts/device-run.sh ncu profiles.
func.func @prefill(%q: tensor<16x32x1024x64xbf16>, %k: tensor<16x32x1024x64xbf16>, %v: tensor<16x32x1024x64xbf16>) -> tensor<16x32x1024x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<16x32x1024x64xbf16>, tensor<16x32x1024x64xbf16>, tensor<16x32x1024x64xbf16> -> tensor<16x32x1024x64xbf16>
  return %o : tensor<16x32x1024x64xbf16>
}
