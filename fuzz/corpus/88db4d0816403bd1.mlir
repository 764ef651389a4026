func.func @hd136(%q: tensor<1x2x70x136xbf16>, %k: tensor<1x2x333x136xbf16>, %v: tensor<1x2x333x136xbf16>) -> tensor<1x2x70x136xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x70x136xbf16>, tensor<1x2x333x136xbf16> -> tensor<1x2x70x333xf32>
  %t = attn.scale %s {factor = 0.0857493 : f32} : tensor<1x2x70x333xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x70x333xf32> -> tensor<1x2x70x333xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x70x333xbf16>, tensor<1x2x333x136xbf16> -> tensor<1x2x70x136xbf16>
  return %o : tensor<1x2x70x136xbf16>
}
