func.func @lse(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x500x64xbf16>, %v: tensor<2x4x500x64xbf16>)
    -> (tensor<2x4x300x64xbf16>, tensor<2x4x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x4x300x64xbf16>, tensor<2x4x500x64xbf16>, tensor<2x4x500x64xbf16> -> tensor<2x4x300x64xbf16>, tensor<2x4x300xf32>
  return %o, %lse : tensor<2x4x300x64xbf16>, tensor<2x4x300xf32>
}
