func.func @decode(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x100x64xbf16>, %len: tensor<2xi32>) -> tensor<2x8x1x64xbf16> {
  %o = attn.flash %q, %k, %k lengths(%len : tensor<2xi32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x8x1x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}
