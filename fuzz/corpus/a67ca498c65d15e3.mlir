func.func @captures_without_score_mod(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>, %t: tensor<4xf32>) -> tensor<1x1x8x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%t : tensor<4xf32>) {scale = 1.0 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}
