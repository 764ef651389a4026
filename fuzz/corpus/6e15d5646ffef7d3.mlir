func.func @seq2049_causal(%q: tensor<1x2x2049x128xf16>, %k: tensor<1x2x2049x128xf16>, %v: tensor<1x2x2049x128xf16>) -> tensor<1x2x2049x128xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x2049x128xf16>, tensor<1x2x2049x128xf16> -> tensor<1x2x2049x2049xf32>
  %t = attn.scale %s {factor = 0.0883883 : f32} : tensor<1x2x2049x2049xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x2049x2049xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x2049x2049xf32> -> tensor<1x2x2049x2049xf16>
  %o = attn.matmul %p, %v : tensor<1x2x2049x2049xf16>, tensor<1x2x2049x128xf16> -> tensor<1x2x2049x128xf16>
  return %o : tensor<1x2x2049x128xf16>
}
