func.func @bias_full_f32(%q: tensor<2x2x70x64xbf16>, %k: tensor<2x2x90x64xbf16>, %v: tensor<2x2x90x64xbf16>, %bias: tensor<2x2x70x90xf32>) -> tensor<2x2x70x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x70x64xbf16>, tensor<2x2x90x64xbf16> -> tensor<2x2x70x90xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<2x2x70x90xf32>
  %m = attn.mask %t bias(%bias : tensor<2x2x70x90xf32>) {kind = #attn.mask<bias>} : tensor<2x2x70x90xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x70x90xf32> -> tensor<2x2x70x90xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x70x90xbf16>, tensor<2x2x90x64xbf16> -> tensor<2x2x70x64xbf16>
  return %o : tensor<2x2x70x64xbf16>
}
