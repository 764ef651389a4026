func.func @mask_zero_keep(%s: tensor<1x1x8x8xf32>, %keep: tensor<1x1x8x0xi1>) -> tensor<1x1x8x8xf32> {
  %m = attn.mask %s keep(%keep : tensor<1x1x8x0xi1>) {kind = #attn.mask<keep>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
