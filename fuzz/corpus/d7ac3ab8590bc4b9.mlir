func.func @window_two_sided(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x500x64xbf16>, %v: tensor<2x4x500x64xbf16>) -> tensor<2x4x300x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x300x64xbf16>, tensor<2x4x500x64xbf16> -> tensor<2x4x300x500xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x300x500xf32>
  %k2 = attn.mask %t {kind = #attn.mask<window = [32, 48]>} : tensor<2x4x300x500xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x300x500xf32> -> tensor<2x4x300x500xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x300x500xbf16>, tensor<2x4x500x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
