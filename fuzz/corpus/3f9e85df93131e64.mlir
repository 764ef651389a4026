func.func @hd160_f16(%q: tensor<1x2x128x160xf16>, %k: tensor<1x1x128x160xf16>, %v: tensor<1x1x128x160xf16>) -> tensor<1x2x128x160xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x128x160xf16>, tensor<1x1x128x160xf16> -> tensor<1x2x128x128xf32>
  %t = attn.scale %s {factor = 0.0790569 : f32} : tensor<1x2x128x128xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x128x128xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x128x128xf32> -> tensor<1x2x128x128xf16>
  %o = attn.matmul %p, %v : tensor<1x2x128x128xf16>, tensor<1x1x128x160xf16> -> tensor<1x2x128x160xf16>
  return %o : tensor<1x2x128x160xf16>
}
