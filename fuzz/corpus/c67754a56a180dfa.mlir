func.func @in_place_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xbf16> {
  %m = attn.kernel "softmax" in_place(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xbf16> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = attn.softmax %x {dim = 3} : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xbf16>
    attn.yield %y : tensor<1x1x8x8xbf16>
  }
  return %m : tensor<1x1x8x8xbf16>
}
