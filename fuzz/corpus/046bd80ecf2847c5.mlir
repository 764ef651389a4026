func.func @seq1(%q: tensor<2x4x1x64xbf16>, %k: tensor<2x4x1x64xbf16>, %v: tensor<2x4x1x64xbf16>) -> tensor<2x4x1x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x1x64xbf16>, tensor<2x4x1x64xbf16> -> tensor<2x4x1x1xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x1x1xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x1x1xf32> -> tensor<2x4x1x1xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x1x1xbf16>, tensor<2x4x1x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}
