func.func @kernel_zero_input(%s: tensor<1x0xf32>) -> tensor<1x0xf32> {
  %m = attn.kernel "cast"(%s) : (tensor<1x0xf32>) -> tensor<1x0xf32> {
  ^bb0(%x: tensor<1x0xf32>):
    attn.yield %x : tensor<1x0xf32>
  }
  return %m : tensor<1x0xf32>
}
