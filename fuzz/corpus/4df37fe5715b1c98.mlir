func.func @causal_gqa(%q: tensor<1x8x300x64xf16>, %k: tensor<1x2x100x64xf16>, %v: tensor<1x2x100x64xf16>) -> tensor<1x8x300x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x8x300x64xf16>, tensor<1x2x100x64xf16> -> tensor<1x8x300x100xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x8x300x100xf32>
  %m = attn.mask %t {kind = #attn.mask<causal, bottom_right>} : tensor<1x8x300x100xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x8x300x100xf32> -> tensor<1x8x300x100xf16>
  %o = attn.matmul %p, %v : tensor<1x8x300x100xf16>, tensor<1x2x100x64xf16> -> tensor<1x8x300x64xf16>
  return %o : tensor<1x8x300x64xf16>
}
