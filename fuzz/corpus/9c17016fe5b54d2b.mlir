func.func @not_graph(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "neg"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = arith.negf %x : tensor<1x1x8x8xf32>
    attn.yield %y : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
