func.func @hd16_f16(%q: tensor<1x4x129x16xf16>, %k: tensor<1x2x200x16xf16>, %v: tensor<1x2x200x16xf16>) -> tensor<1x4x129x16xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x129x16xf16>, tensor<1x2x200x16xf16> -> tensor<1x4x129x200xf32>
  %t = attn.scale %s {factor = 0.2500000 : f32} : tensor<1x4x129x200xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x4x129x200xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x4x129x200xf32> -> tensor<1x4x129x200xf16>
  %o = attn.matmul %p, %v : tensor<1x4x129x200xf16>, tensor<1x2x200x16xf16> -> tensor<1x4x129x16xf16>
  return %o : tensor<1x4x129x16xf16>
}
