func.func @needs_lengths(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.mask %s {kind = #attn.mask<key_padding>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
