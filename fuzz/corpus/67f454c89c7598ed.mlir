func.func @rank(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}
