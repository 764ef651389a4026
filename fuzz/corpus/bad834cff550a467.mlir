func.func @bias_bf16(%q: tensor<2x4x256x64xbf16>, %k: tensor<2x4x256x64xbf16>, %v: tensor<2x4x256x64xbf16>, %bias: tensor<2x1x1x256xbf16>) -> tensor<2x4x256x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16> -> tensor<2x4x256x256xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x256x256xf32>
  %k2 = attn.mask %t bias(%bias : tensor<2x1x1x256xbf16>) {kind = #attn.mask<bias>} : tensor<2x4x256x256xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x256x256xf32> -> tensor<2x4x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x256x256xbf16>, tensor<2x4x256x64xbf16> -> tensor<2x4x256x64xbf16>
  return %o : tensor<2x4x256x64xbf16>
}
