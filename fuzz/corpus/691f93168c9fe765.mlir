func.func @hd200(%q: tensor<1x1x77x200xbf16>, %k: tensor<1x1x150x200xbf16>, %v: tensor<1x1x150x200xbf16>) -> tensor<1x1x77x200xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x1x77x200xbf16>, tensor<1x1x150x200xbf16> -> tensor<1x1x77x150xf32>
  %t = attn.scale %s {factor = 0.0707107 : f32} : tensor<1x1x77x150xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x1x77x150xf32> -> tensor<1x1x77x150xbf16>
  %o = attn.matmul %p, %v : tensor<1x1x77x150xbf16>, tensor<1x1x150x200xbf16> -> tensor<1x1x77x200xbf16>
  return %o : tensor<1x1x77x200xbf16>
}
