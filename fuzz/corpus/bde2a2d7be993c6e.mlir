func.func @rank5(%x: tensor<2x1x2x8x8xf32>) -> tensor<2x1x2x8x8xf32> {
  %y = attn.kernel "softmax"(%x) : (tensor<2x1x2x8x8xf32>) -> tensor<2x1x2x8x8xf32> {
  ^bb0(%a: tensor<2x1x2x8x8xf32>):
    %b = attn.softmax %a {dim = 4} : tensor<2x1x2x8x8xf32> -> tensor<2x1x2x8x8xf32>
    attn.yield %b : tensor<2x1x2x8x8xf32>
  }
  return %y : tensor<2x1x2x8x8xf32>
}
