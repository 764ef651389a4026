func.func @hd96x32(%q: tensor<1x2x50x96xbf16>, %k: tensor<1x2x60x96xbf16>, %v: tensor<1x2x60x32xbf16>) -> tensor<1x2x50x32xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x50x96xbf16>, tensor<1x2x60x96xbf16> -> tensor<1x2x50x60xf32>
  %t = attn.scale %s {factor = 0.1020621 : f32} : tensor<1x2x50x60xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x50x60xf32> -> tensor<1x2x50x60xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x50x60xbf16>, tensor<1x2x60x32xbf16> -> tensor<1x2x50x32xbf16>
  return %o : tensor<1x2x50x32xbf16>
}
