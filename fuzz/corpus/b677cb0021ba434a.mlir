func.func @stray_bias(%s: tensor<1x1x8x8xf32>, %b: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.mask %s bias(%b : tensor<1x1x8x8xf32>) {kind = #attn.mask<causal>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
