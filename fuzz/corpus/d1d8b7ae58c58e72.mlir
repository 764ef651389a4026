func.func @gqa(%q: tensor<1x32x16x128xbf16>, %k: tensor<1x4x512x128xbf16>, %v: tensor<1x4x512x128xbf16>) -> tensor<1x32x16x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x32x16x128xbf16>, tensor<1x4x512x128xbf16> -> tensor<1x32x16x512xf32>
  %t = attn.scale %s {factor = 0.0883883461 : f32} : tensor<1x32x16x512xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x32x16x512xf32> -> tensor<1x32x16x512xbf16>
  %o = attn.matmul %p, %v : tensor<1x32x16x512xbf16>, tensor<1x4x512x128xbf16> -> tensor<1x32x16x128xbf16>
  return %o : tensor<1x32x16x128xbf16>
}
func.func @mqa(%q: tensor<2x8x1x64xf16>, %k: tensor<2x1x300x64xf16>, %v: tensor<2x1x300x64xf16>) -> tensor<2x8x1x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x1x64xf16>, tensor<2x1x300x64xf16> -> tensor<2x8x1x300xf32>
  %p = attn.softmax %s {dim = 3} : tensor<2x8x1x300xf32> -> tensor<2x8x1x300xf16>
  %o = attn.matmul %p, %v : tensor<2x8x1x300xf16>, tensor<2x1x300x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}
