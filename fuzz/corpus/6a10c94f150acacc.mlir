func.func @causal_gqa(%q: tensor<2x32x2048x128xf16>, %k: tensor<2x8x2048x128xf16>,
                      %v: tensor<2x8x2048x128xf16>) -> tensor<2x32x2048x128xf16> {
  %qs = attn.scale %q {factor = 0.0883883461 : f32} : tensor<2x32x2048x128xf16>
  %s = attn.matmul %qs, %k {transpose_rhs}
      : tensor<2x32x2048x128xf16>, tensor<2x8x2048x128xf16> -> tensor<2x32x2048x2048xf32>
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<2x32x2048x2048xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x32x2048x2048xf32> -> tensor<2x32x2048x2048xf32>
  %ph = arith.truncf %p : tensor<2x32x2048x2048xf32> to tensor<2x32x2048x2048xf16>
  %o = attn.matmul %ph, %v
      : tensor<2x32x2048x2048xf16>, tensor<2x8x2048x128xf16> -> tensor<2x32x2048x128xf16>
  return %o : tensor<2x32x2048x128xf16>
}
