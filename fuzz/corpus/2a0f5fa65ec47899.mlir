func.func @keep_rank(%s: tensor<2x1x8x8xf32>, %k: tensor<8x8xi1>) -> tensor<2x1x8x8xf32> {
  %m = attn.mask %s keep(%k : tensor<8x8xi1>) {kind = #attn.mask<keep>} : tensor<2x1x8x8xf32>
  return %m : tensor<2x1x8x8xf32>
}
