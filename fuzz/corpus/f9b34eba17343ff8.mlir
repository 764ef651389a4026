func.func @select_masked_fill(%q: tensor<2x4x32x64xf16>, %k: tensor<2x4x48x64xf16>, %v: tensor<2x4x48x64xf16>, %keep: tensor<2x4x32x48xi1>) -> tensor<2x4x32x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x32x64xf16>, tensor<2x4x48x64xf16> -> tensor<2x4x32x48xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x32x48xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x4x32x48xf32>
  %m = arith.select %keep, %t, %ninf : tensor<2x4x32x48xi1>, tensor<2x4x32x48xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x32x48xf32> -> tensor<2x4x32x48xf16>
  %o = attn.matmul %p, %v : tensor<2x4x32x48xf16>, tensor<2x4x48x64xf16> -> tensor<2x4x32x64xf16>
  return %o : tensor<2x4x32x64xf16>
}
