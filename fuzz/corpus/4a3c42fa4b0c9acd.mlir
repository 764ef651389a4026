func.func @no_payload(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "nothing"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    attn.yield %x : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
