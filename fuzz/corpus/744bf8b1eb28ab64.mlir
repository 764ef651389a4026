func.func @seq2(%q: tensor<3x2x2x64xbf16>, %k: tensor<3x2x2x64xbf16>, %v: tensor<3x2x2x64xbf16>) -> tensor<3x2x2x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<3x2x2x64xbf16>, tensor<3x2x2x64xbf16> -> tensor<3x2x2x2xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<3x2x2x2xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<3x2x2x2xf32>
  %p = attn.softmax %m {dim = 3} : tensor<3x2x2x2xf32> -> tensor<3x2x2x2xbf16>
  %o = attn.matmul %p, %v : tensor<3x2x2x2xbf16>, tensor<3x2x2x64xbf16> -> tensor<3x2x2x64xbf16>
  return %o : tensor<3x2x2x64xbf16>
}
