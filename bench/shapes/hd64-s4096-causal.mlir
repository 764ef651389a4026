// The prefill grid's shape hd64, S=4096, causal (B*S = 16k, H*D = 2048): what
// scripts/device-run.sh ncu profiles.
func.func @prefill(%q: tensor<4x32x4096x64xbf16>, %k: tensor<4x32x4096x64xbf16>, %v: tensor<4x32x4096x64xbf16>) -> tensor<4x32x4096x64xbf16> {
  %o = attn.flash %q, %k, %v {mask = #attn.mask<causal>, scale = 0.125 : f32} : tensor<4x32x4096x64xbf16>, tensor<4x32x4096x64xbf16>, tensor<4x32x4096x64xbf16> -> tensor<4x32x4096x64xbf16>
  return %o : tensor<4x32x4096x64xbf16>
}
