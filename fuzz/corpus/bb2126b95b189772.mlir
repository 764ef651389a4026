func.func @element(%q: tensor<1x8x16x64xbf16>, %s: tensor<8xbf16>) -> tensor<1x8x16x64xbf16> {
  %o = attn.flash %q, %q, %q sinks(%s : tensor<8xbf16>) {scale = 1.0 : f32}
    : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}
