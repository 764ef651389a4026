func.func @bias_keys(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %len: tensor<2xi32>, %t: tensor<2x4xi32>, %b: tensor<1x1x1x16xf32>) -> tensor<2x4x1x64xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<2xi32>) bias(%b : tensor<1x1x1x16xf32>) block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding, bias>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}
