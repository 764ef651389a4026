// The prefill grid's shape hd128, S=4096, causal (B*S = 16k, H*D = 2048): what
// scripts/device-run.sh ncu profiles.
func.func @prefill(%q: tensor<4x16x4096x128xbf16>, %k: tensor<4x16x4096x128xbf16>, %v: tensor<4x16x4096x128xbf16>) -> tensor<4x16x4096x128xbf16> {
  %o = attn.flash %q, %k, %v {mask = #attn.mask<causal>, scale = 0.088388 : f32} : tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16> -> tensor<4x16x4096x128xbf16>
  return %o : tensor<4x16x4096x128xbf16>
}
