func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @attention(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}
