func.func @bias_dim(%s: tensor<2x4x8x8xf32>, %b: tensor<1x3x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %m = attn.mask %s bias(%b : tensor<1x3x8x8xf32>) {kind = #attn.mask<bias>} : tensor<2x4x8x8xf32>
  return %m : tensor<2x4x8x8xf32>
}
