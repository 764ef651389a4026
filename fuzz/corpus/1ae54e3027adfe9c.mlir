func.func @sq3000_skv1(%q: tensor<1x2x3000x64xbf16>, %k: tensor<1x2x1x64xbf16>, %v: tensor<1x2x1x64xbf16>) -> tensor<1x2x3000x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x3000x64xbf16>, tensor<1x2x1x64xbf16> -> tensor<1x2x3000x1xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<1x2x3000x1xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x3000x1xf32> -> tensor<1x2x3000x1xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x3000x1xbf16>, tensor<1x2x1x64xbf16> -> tensor<1x2x3000x64xbf16>
  return %o : tensor<1x2x3000x64xbf16>
}
