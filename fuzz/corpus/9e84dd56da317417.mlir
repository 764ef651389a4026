func.func @empty(%q: tensor<1x8x16x64xbf16>, %s: tensor<0xf32>) -> tensor<1x8x16x64xbf16> {
  %o = attn.flash %q, %q, %q sinks(%s : tensor<0xf32>) {scale = 1.0 : f32}
    : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}
