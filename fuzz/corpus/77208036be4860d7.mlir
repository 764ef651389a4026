func.func @hd24(%q: tensor<1x2x33x24xbf16>, %k: tensor<1x1x257x24xbf16>, %v: tensor<1x1x257x24xbf16>) -> tensor<1x2x33x24xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x33x24xbf16>, tensor<1x1x257x24xbf16> -> tensor<1x2x33x257xf32>
  %t = attn.scale %s {factor = 0.2041241 : f32} : tensor<1x2x33x257xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x33x257xf32> -> tensor<1x2x33x257xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x33x257xbf16>, tensor<1x1x257x24xbf16> -> tensor<1x2x33x24xbf16>
  return %o : tensor<1x2x33x24xbf16>
}
