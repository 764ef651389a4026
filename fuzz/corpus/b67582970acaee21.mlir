func.func @keep_broadcast(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x1x16x64xbf16>, %v: tensor<2x1x16x64xbf16>, %m: tensor<2x4x8x8xi1>) -> tensor<2x4x8x64xbf16> {
  %o = attn.flash %q, %k, %v keep(%m : tensor<2x4x8x8xi1>) {scale = 1.0 : f32, mask = #attn.mask<keep>} : tensor<2x4x8x64xbf16>, tensor<2x1x16x64xbf16>, tensor<2x1x16x64xbf16> -> tensor<2x4x8x64xbf16>
  return %o : tensor<2x4x8x64xbf16>
}
