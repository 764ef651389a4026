func.func @mqa(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x1x2048x128xbf16>, %v: tensor<2x1x2048x128xbf16>) -> tensor<2x8x1x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x1x128xbf16>, tensor<2x1x2048x128xbf16> -> tensor<2x8x1x2048xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x8x1x2048xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x8x1x2048xf32> -> tensor<2x8x1x2048xbf16>
  %o = attn.matmul %p, %v : tensor<2x8x1x2048xbf16>, tensor<2x1x2048x128xbf16> -> tensor<2x8x1x128xbf16>
  return %o : tensor<2x8x1x128xbf16>
}
