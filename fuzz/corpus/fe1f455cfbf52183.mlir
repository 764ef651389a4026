func.func @lengths_shape(%s: tensor<2x1x8x8xf32>, %len: tensor<3xi32>) -> tensor<2x1x8x8xf32> {
  %m = attn.mask %s lengths(%len : tensor<3xi32>) {kind = #attn.mask<key_padding>} : tensor<2x1x8x8xf32>
  return %m : tensor<2x1x8x8xf32>
}
