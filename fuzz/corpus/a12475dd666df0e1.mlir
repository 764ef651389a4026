func.func @window(%q: tensor<1x1x2048x64xbf16>, %k: tensor<1x1x2048x64xbf16>, %v: tensor<1x1x2048x64xbf16>) -> tensor<1x1x2048x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x1x2048x64xbf16>, tensor<1x1x2048x64xbf16> -> tensor<1x1x2048x2048xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x1x2048x2048xf32>
  %m = attn.mask %t {kind = #attn.mask<window = [256, 0]>} : tensor<1x1x2048x2048xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x1x2048x2048xf32> -> tensor<1x1x2048x2048xbf16>
  %o = attn.matmul %p, %v : tensor<1x1x2048x2048xbf16>, tensor<1x1x2048x64xbf16> -> tensor<1x1x2048x64xbf16>
  return %o : tensor<1x1x2048x64xbf16>
}
