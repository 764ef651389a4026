func.func @no_lengths(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %t: tensor<2x4xi32>) -> tensor<2x4x1x64xbf16> {
  %o = attn.flash %q, %kc, %kc block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}
