func.func @causal(%q: tensor<1x2x1024x64xbf16>, %k: tensor<1x2x1024x64xbf16>, %v: tensor<1x2x1024x64xbf16>) -> tensor<1x2x1024x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x1024x64xbf16>, tensor<1x2x1024x64xbf16> -> tensor<1x2x1024x1024xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x1024x1024xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x1024x1024xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x1024x1024xf32> -> tensor<1x2x1024x1024xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x1024x1024xbf16>, tensor<1x2x1024x64xbf16> -> tensor<1x2x1024x64xbf16>
  return %o : tensor<1x2x1024x64xbf16>
}
