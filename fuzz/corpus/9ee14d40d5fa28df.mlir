func.func @operands_out_of_order(%a: tensor<1x1x8x16xf32>, %b: tensor<1x1x16x8xf32>) -> tensor<1x1x16x16xf32> {
  %m = attn.kernel "matmul"(%a, %b) : (tensor<1x1x8x16xf32>, tensor<1x1x16x8xf32>) -> tensor<1x1x16x16xf32> {
  ^bb0(%x: tensor<1x1x8x16xf32>, %y: tensor<1x1x16x8xf32>):
    %r = attn.matmul %y, %x : tensor<1x1x16x8xf32>, tensor<1x1x8x16xf32> -> tensor<1x1x16x16xf32>
    attn.yield %r : tensor<1x1x16x16xf32>
  }
  return %m : tensor<1x1x16x16xf32>
}
