func.func @keep_type(%s: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xi8>) -> tensor<1x1x8x8xf32> {
  %m = attn.mask %s keep(%k : tensor<1x1x8x8xi8>) {kind = #attn.mask<keep>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
