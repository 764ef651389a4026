func.func @kernels(%s: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xbf16> {
  %m = attn.kernel "mask" in_place(%s) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  ^bb0(%x: tensor<1x2x8x8xf32>):
    %y = attn.mask %x {kind = #attn.mask<causal>} : tensor<1x2x8x8xf32>
    attn.yield %y : tensor<1x2x8x8xf32>
  }
  %p = attn.kernel "softmax"(%m) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xbf16> {
  ^bb0(%x: tensor<1x2x8x8xf32>):
    %y = attn.softmax %x {dim = 3} : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xbf16>
    attn.yield %y : tensor<1x2x8x8xbf16>
  }
  return %p : tensor<1x2x8x8xbf16>
}
