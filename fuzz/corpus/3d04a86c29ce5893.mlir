func.func @bias_and_keep(%q: tensor<2x4x32x64xbf16>, %k: tensor<2x4x32x64xbf16>, %v: tensor<2x4x32x64xbf16>, %bias: tensor<1x4x32x32xf32>, %keep: tensor<1x1x32x32xi1>) -> tensor<2x4x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x32x64xbf16>, tensor<2x4x32x64xbf16> -> tensor<2x4x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x32x32xf32>
  %b = attn.mask %t bias(%bias : tensor<1x4x32x32xf32>) {kind = #attn.mask<bias>} : tensor<2x4x32x32xf32>
  %m = attn.mask %b keep(%keep : tensor<1x1x32x32xi1>) {kind = #attn.mask<keep>} : tensor<2x4x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x32x32xf32> -> tensor<2x4x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x32x32xbf16>, tensor<2x4x32x64xbf16> -> tensor<2x4x32x64xbf16>
  return %o : tensor<2x4x32x64xbf16>
}
