func.func @hd80(%q: tensor<1x6x255x80xf16>, %k: tensor<1x3x255x80xf16>, %v: tensor<1x3x255x80xf16>) -> tensor<1x6x255x80xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x6x255x80xf16>, tensor<1x3x255x80xf16> -> tensor<1x6x255x255xf32>
  %t = attn.scale %s {factor = 0.1118034 : f32} : tensor<1x6x255x255xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x6x255x255xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x6x255x255xf32> -> tensor<1x6x255x255xf16>
  %o = attn.matmul %p, %v : tensor<1x6x255x255xf16>, tensor<1x3x255x80xf16> -> tensor<1x6x255x80xf16>
  return %o : tensor<1x6x255x80xf16>
}
