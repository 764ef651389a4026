func.func @two(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>)
    -> (tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>) {
  %o1 = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  %o2 = attn.flash %k, %q, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o1, %o2 : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
}
