func.func @yield(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = attn.kernel "scale"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = attn.scale %x {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %x : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
