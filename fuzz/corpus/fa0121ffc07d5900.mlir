func.func @sq1_skv8191(%q: tensor<1x8x1x128xbf16>, %k: tensor<1x1x8191x128xbf16>, %v: tensor<1x1x8191x128xbf16>) -> tensor<1x8x1x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x8x1x128xbf16>, tensor<1x1x8191x128xbf16> -> tensor<1x8x1x8191xf32>
  %t = attn.scale %s {factor = 0.0883883 : f32} : tensor<1x8x1x8191xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x8x1x8191xf32> -> tensor<1x8x1x8191xbf16>
  %o = attn.matmul %p, %v : tensor<1x8x1x8191xbf16>, tensor<1x1x8191x128xbf16> -> tensor<1x8x1x128xbf16>
  return %o : tensor<1x8x1x128xbf16>
}
