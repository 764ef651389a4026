func.func @stray_lengths(%s: tensor<1x1x8x8xf32>, %len: tensor<1xi32>) -> tensor<1x1x8x8xf32> {
  %m = attn.mask %s lengths(%len : tensor<1xi32>) {kind = #attn.mask<causal>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
