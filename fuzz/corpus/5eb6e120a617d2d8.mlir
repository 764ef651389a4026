func.func @k_given_transposed(%q: tensor<1x2x48x64xf16>, %kt: tensor<1x2x64x80xf16>, %v: tensor<1x2x80x64xf16>) -> tensor<1x2x48x64xf16> {
  %s = attn.matmul %q, %kt : tensor<1x2x48x64xf16>, tensor<1x2x64x80xf16> -> tensor<1x2x48x80xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x48x80xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x48x80xf32> -> tensor<1x2x48x80xf16>
  %o = attn.matmul %p, %v : tensor<1x2x48x80xf16>, tensor<1x2x80x64xf16> -> tensor<1x2x48x64xf16>
  return %o : tensor<1x2x48x64xf16>
}
