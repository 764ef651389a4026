func.func @keep_full_pad(%q: tensor<2x2x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>, %len: tensor<2xi32>, %keep: tensor<2x2x64x64xi1>) -> tensor<2x2x64x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x2x64x64xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<2x2x64x64xf32>
  %m = attn.mask %t lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x2x64x64xi1>) {kind = #attn.mask<keep, key_padding>} : tensor<2x2x64x64xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x64x64xf32> -> tensor<2x2x64x64xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x2x64x64xbf16>
  return %o : tensor<2x2x64x64xbf16>
}
