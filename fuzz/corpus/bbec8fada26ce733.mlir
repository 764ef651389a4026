func.func @batch_qk(%q: tensor<2x1x8x64xbf16>, %k: tensor<3x1x8x64xbf16>, %v: tensor<3x1x8x64xbf16>) -> tensor<2x1x8x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<2x1x8x64xbf16>, tensor<3x1x8x64xbf16>, tensor<3x1x8x64xbf16> -> tensor<2x1x8x64xbf16>
  return %o : tensor<2x1x8x64xbf16>
}
