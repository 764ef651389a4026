func.func @arg_count(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "scale"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
    %c = arith.constant dense<0.0> : tensor<1x1x8x8xf32>
    attn.yield %c : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
