func.func @pad_f16(%q: tensor<3x2x99x64xf16>, %k: tensor<3x1x999x64xf16>, %v: tensor<3x1x999x64xf16>, %len: tensor<3xi32>) -> tensor<3x2x99x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<3x2x99x64xf16>, tensor<3x1x999x64xf16> -> tensor<3x2x99x999xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<3x2x99x999xf32>
  %m = attn.mask %t lengths(%len : tensor<3xi32>) {kind = #attn.mask<key_padding>} : tensor<3x2x99x999xf32>
  %p = attn.softmax %m {dim = 3} : tensor<3x2x99x999xf32> -> tensor<3x2x99x999xf16>
  %o = attn.matmul %p, %v : tensor<3x2x99x999xf16>, tensor<3x1x999x64xf16> -> tensor<3x2x99x64xf16>
  return %o : tensor<3x2x99x64xf16>
}
