func.func @arg_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "scale"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf16>):
    %y = arith.extf %x : tensor<1x1x8x8xf16> to tensor<1x1x8x8xf32>
    attn.yield %y : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
