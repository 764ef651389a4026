module {
  func.func @graph(%s: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xbf16> {
    %p = attn.softmax %s {dim = 3} : tensor<1x1x16x16xf32> -> tensor<1x1x16x16xbf16>
    return %p : tensor<1x1x16x16xbf16>
  }
}
