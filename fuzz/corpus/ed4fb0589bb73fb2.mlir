func.func @seq1000(%q: tensor<2x4x1000x128xbf16>, %k: tensor<2x4x1000x128xbf16>, %v: tensor<2x4x1000x128xbf16>) -> tensor<2x4x1000x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x1000x128xbf16>, tensor<2x4x1000x128xbf16> -> tensor<2x4x1000x1000xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x4x1000x1000xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x1000x1000xf32> -> tensor<2x4x1000x1000xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x1000x1000xbf16>, tensor<2x4x1000x128xbf16> -> tensor<2x4x1000x128xbf16>
  return %o : tensor<2x4x1000x128xbf16>
}
