func.func @sinks(%q: tensor<2x8x600x64xbf16>, %k: tensor<2x2x500x64xbf16>, %v: tensor<2x2x500x64xbf16>, %s: tensor<8xf32>)
    -> (tensor<2x8x600x64xbf16>, tensor<2x8x600xf32>) {
  %o, %lse = attn.flash %q, %k, %v sinks(%s : tensor<8xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x8x600x64xbf16>, tensor<2x2x500x64xbf16>, tensor<2x2x500x64xbf16> -> tensor<2x8x600x64xbf16>, tensor<2x8x600xf32>
  return %o, %lse : tensor<2x8x600x64xbf16>, tensor<2x8x600xf32>
}
