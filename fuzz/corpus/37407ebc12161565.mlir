func.func @hd192_f16(%q: tensor<2x4x384x192xf16>, %k: tensor<2x4x384x192xf16>, %v: tensor<2x4x384x192xf16>) -> tensor<2x4x384x192xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x384x192xf16>, tensor<2x4x384x192xf16> -> tensor<2x4x384x384xf32>
  %t = attn.scale %s {factor = 0.0721687836 : f32} : tensor<2x4x384x384xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x384x384xf32> -> tensor<2x4x384x384xf16>
  %o = attn.matmul %p, %v : tensor<2x4x384x384xf16>, tensor<2x4x384x192xf16> -> tensor<2x4x384x192xf16>
  return %o : tensor<2x4x384x192xf16>
}
