func.func @scale_after_matmul(%q: tensor<2x4x64x32xbf16>, %k: tensor<2x4x64x32xbf16>, %v: tensor<2x4x64x32xbf16>) -> tensor<2x4x64x32xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x64x64xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x64x64xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x64x64xf32> -> tensor<2x4x64x64xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x64x64xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x64x32xbf16>
  return %o : tensor<2x4x64x32xbf16>
}
