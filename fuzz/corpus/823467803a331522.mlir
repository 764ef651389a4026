func.func @bad(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.mask %s {
    kind = #attn.mask<causal, casual>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
