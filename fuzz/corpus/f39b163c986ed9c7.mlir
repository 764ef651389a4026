func.func @two_ops(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "two"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %a = attn.scale %x {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    %b = attn.scale %a {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %b : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
