func.func @hd8(%q: tensor<2x3x65x8xbf16>, %k: tensor<2x3x65x8xbf16>, %v: tensor<2x3x65x8xbf16>) -> tensor<2x3x65x8xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x3x65x8xbf16>, tensor<2x3x65x8xbf16> -> tensor<2x3x65x65xf32>
  %t = attn.scale %s {factor = 0.3535534 : f32} : tensor<2x3x65x65xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x3x65x65xf32> -> tensor<2x3x65x65xbf16>
  %o = attn.matmul %p, %v : tensor<2x3x65x65xbf16>, tensor<2x3x65x8xbf16> -> tensor<2x3x65x8xbf16>
  return %o : tensor<2x3x65x8xbf16>
}
