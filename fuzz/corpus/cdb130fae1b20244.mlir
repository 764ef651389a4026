func.func @lse_shape(%q: tensor<1x2x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x2x8xf32> {
  %o, %l = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x2x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x2x8x64xbf16>, tensor<1x1x8xf32>
  return %l : tensor<1x1x8xf32>
}
