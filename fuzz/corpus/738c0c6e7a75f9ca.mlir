func.func @per_kv_head(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %s: tensor<2xf32>) -> tensor<1x8x16x64xbf16> {
  %o = attn.flash %q, %k, %k sinks(%s : tensor<2xf32>) {scale = 1.0 : f32}
    : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}
