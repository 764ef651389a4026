func.func @window_br(%q: tensor<1x2x300x64xbf16>, %k: tensor<1x2x900x64xbf16>, %v: tensor<1x2x900x64xbf16>) -> tensor<1x2x300x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x300x64xbf16>, tensor<1x2x900x64xbf16> -> tensor<1x2x300x900xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<1x2x300x900xf32>
  %m = attn.mask %t {kind = #attn.mask<window = [100, 20], bottom_right>} : tensor<1x2x300x900xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x300x900xf32> -> tensor<1x2x300x900xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x300x900xbf16>, tensor<1x2x900x64xbf16> -> tensor<1x2x300x64xbf16>
  return %o : tensor<1x2x300x64xbf16>
}
