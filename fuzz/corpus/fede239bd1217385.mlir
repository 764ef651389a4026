func.func @large_hd128(%q: tensor<8x16x4096x128xbf16>, %k: tensor<8x16x4096x128xbf16>, %v: tensor<8x16x4096x128xbf16>) -> tensor<8x16x4096x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32} : tensor<8x16x4096x128xbf16>, tensor<8x16x4096x128xbf16>, tensor<8x16x4096x128xbf16> -> tensor<8x16x4096x128xbf16>
  return %o : tensor<8x16x4096x128xbf16>
}
