func.func @transposed_k(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x64x304xbf16>, %v: tensor<2x4x304x64xbf16>) -> tensor<2x4x200x64xbf16> {
  %s = attn.matmul %q, %k : tensor<2x4x200x64xbf16>, tensor<2x4x64x304xbf16> -> tensor<2x4x200x304xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x200x304xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x200x304xf32> -> tensor<2x4x200x304xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x200x304xbf16>, tensor<2x4x304x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
