func.func @many(%q: tensor<1x40x500x64xf16>, %k: tensor<1x8x500x64xf16>, %v: tensor<1x8x500x64xf16>) -> tensor<1x40x500x64xf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<1x40x500x64xf16>, tensor<1x8x500x64xf16>, tensor<1x8x500x64xf16> -> tensor<1x40x500x64xf16>
  return %o : tensor<1x40x500x64xf16>
}
