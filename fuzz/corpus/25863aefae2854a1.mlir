func.func @hd72(%q: tensor<2x4x200x72xbf16>, %k: tensor<2x4x200x72xbf16>, %v: tensor<2x4x200x72xbf16>) -> tensor<2x4x200x72xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x200x72xbf16>, tensor<2x4x200x72xbf16> -> tensor<2x4x200x200xf32>
  %t = attn.scale %s {factor = 0.11785113 : f32} : tensor<2x4x200x200xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x200x200xf32> -> tensor<2x4x200x200xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x200x200xbf16>, tensor<2x4x200x72xbf16> -> tensor<2x4x200x72xbf16>
  return %o : tensor<2x4x200x72xbf16>
}
