func.func @causal_gqa_backward(%q: tensor<2x16x1024x128xbf16>, %k: tensor<2x4x1024x128xbf16>,
                               %v: tensor<2x4x1024x128xbf16>) -> tensor<2x16x1024x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs}
      : tensor<2x16x1024x128xbf16>, tensor<2x4x1024x128xbf16> -> tensor<2x16x1024x1024xf32>
  %t = attn.scale %s {factor = 0.0883883461 : f32} : tensor<2x16x1024x1024xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x16x1024x1024xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x16x1024x1024xf32> -> tensor<2x16x1024x1024xbf16>
  %o = attn.matmul %p, %v
      : tensor<2x16x1024x1024xbf16>, tensor<2x4x1024x128xbf16> -> tensor<2x16x1024x128xbf16>
  return %o : tensor<2x16x1024x128xbf16>
}
