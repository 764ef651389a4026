func.func @padding_then_causal(%q: tensor<2x2x32x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x2x32x32xf32>
  %a = attn.mask %t lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x32x32xf32>
  %b = attn.mask %a {kind = #attn.mask<causal>} : tensor<2x2x32x32xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x2x32x32xf32> -> tensor<2x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x32x32xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x64xbf16>
  return %o : tensor<2x2x32x64xbf16>
}
func.func @causal_then_padding(%q: tensor<2x2x32x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x2x32x32xf32>
  %a = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x2x32x32xf32>
  %b = attn.mask %a lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x32x32xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x2x32x32xf32> -> tensor<2x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x32x32xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x64xbf16>
  return %o : tensor<2x2x32x64xbf16>
}
