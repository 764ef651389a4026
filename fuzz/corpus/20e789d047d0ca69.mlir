func.func @two_layers(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>) -> tensor<1x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x32x32xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %a = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  %s2 = attn.matmul %a, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %t2 = attn.scale %s2 {factor = 0.125 : f32} : tensor<1x2x32x32xf32>
  %p2 = attn.softmax %t2 {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %b = attn.matmul %p2, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %b : tensor<1x2x32x64xbf16>
}
