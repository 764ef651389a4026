func.func @keep_full(%q: tensor<2x4x64x64xbf16>, %k: tensor<2x4x96x64xbf16>, %v: tensor<2x4x96x64xbf16>, %keep: tensor<2x4x64x96xi1>) -> tensor<2x4x64x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x64x64xbf16>, tensor<2x4x96x64xbf16> -> tensor<2x4x64x96xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x64x96xf32>
  %k2 = attn.mask %t keep(%keep : tensor<2x4x64x96xi1>) {kind = #attn.mask<keep>} : tensor<2x4x64x96xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x64x96xf32> -> tensor<2x4x64x96xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x64x96xbf16>, tensor<2x4x96x64xbf16> -> tensor<2x4x64x64xbf16>
  return %o : tensor<2x4x64x64xbf16>
}
