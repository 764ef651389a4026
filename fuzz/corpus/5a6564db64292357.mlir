func.func @kernel_no_terminator(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %m = "attn.kernel"(%s) <{name = "x"}> ({
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = attn.scale %x {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
  }) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
