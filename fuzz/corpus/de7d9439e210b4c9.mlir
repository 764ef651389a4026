func.func @decode4(%q: tensor<8x16x4x128xbf16>, %k: tensor<8x4x1500x128xbf16>, %v: tensor<8x4x1500x128xbf16>,
                   %len: tensor<8xi32>) -> tensor<8x16x4x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<8x16x4x128xbf16>, tensor<8x4x1500x128xbf16> -> tensor<8x16x4x1500xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<8x16x4x1500xf32>
  %m = attn.mask %t lengths(%len : tensor<8xi32>) {kind = #attn.mask<causal, bottom_right, key_padding>} : tensor<8x16x4x1500xf32>
  %p = attn.softmax %m {dim = 3} : tensor<8x16x4x1500xf32> -> tensor<8x16x4x1500xbf16>
  %o = attn.matmul %p, %v : tensor<8x16x4x1500xbf16>, tensor<8x4x1500x128xbf16> -> tensor<8x16x4x128xbf16>
  return %o : tensor<8x16x4x128xbf16>
}
