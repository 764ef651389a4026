func.func @hd128x64(%q: tensor<1x4x200x128xf16>, %k: tensor<1x4x100x128xf16>, %v: tensor<1x4x100x64xf16>) -> tensor<1x4x200x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x200x128xf16>, tensor<1x4x100x128xf16> -> tensor<1x4x200x100xf32>
  %t = attn.scale %s {factor = 0.0883883 : f32} : tensor<1x4x200x100xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x4x200x100xf32> -> tensor<1x4x200x100xf16>
  %o = attn.matmul %p, %v : tensor<1x4x200x100xf16>, tensor<1x4x100x64xf16> -> tensor<1x4x200x64xf16>
  return %o : tensor<1x4x200x64xf16>
}
