func.func @decode_no_other_mask(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x100x64xbf16>) -> tensor<2x8x1x64xbf16> {
  %o = attn.flash %q, %k, %k {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x8x1x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}
