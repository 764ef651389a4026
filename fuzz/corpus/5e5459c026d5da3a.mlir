func.func @bias_f16_keys(%q: tensor<2x4x130x64xf16>, %k: tensor<2x2x140x64xf16>, %v: tensor<2x2x140x64xf16>, %bias: tensor<1x1x1x140xf16>) -> tensor<2x4x130x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x130x64xf16>, tensor<2x2x140x64xf16> -> tensor<2x4x130x140xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<2x4x130x140xf32>
  %m = attn.mask %t bias(%bias : tensor<1x1x1x140xf16>) {kind = #attn.mask<causal, bias>} : tensor<2x4x130x140xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x130x140xf32> -> tensor<2x4x130x140xf16>
  %o = attn.matmul %p, %v : tensor<2x4x130x140xf16>, tensor<2x2x140x64xf16> -> tensor<2x4x130x64xf16>
  return %o : tensor<2x4x130x64xf16>
}
