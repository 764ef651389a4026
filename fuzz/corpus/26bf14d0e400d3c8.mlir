func.func @split(%q: tensor<1x2x300x64xbf16>, %k: tensor<1x2x1000x64xbf16>, %v: tensor<1x2x1000x64xbf16>)
    -> (tensor<1x2x300x64xbf16>, tensor<1x2x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<1x2x300x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16> -> tensor<1x2x300x64xbf16>, tensor<1x2x300xf32>
  return %o, %lse : tensor<1x2x300x64xbf16>, tensor<1x2x300xf32>
}
