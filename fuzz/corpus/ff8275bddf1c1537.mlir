func.func @sdpa(%q: tensor<4x16x1024x128xbf16>, %k: tensor<4x16x1024x128xbf16>,
                %v: tensor<4x16x1024x128xbf16>) -> tensor<4x16x1024x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs}
      : tensor<4x16x1024x128xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x1024xf32>
  %t = attn.scale %s {factor = 0.0883883461 : f32} : tensor<4x16x1024x1024xf32>
  %p = attn.softmax %t {dim = 3} : tensor<4x16x1024x1024xf32> -> tensor<4x16x1024x1024xbf16>
  %o = attn.matmul %p, %v
      : tensor<4x16x1024x1024xbf16>, tensor<4x16x1024x128xbf16> -> tensor<4x16x1024x128xbf16>
  return %o : tensor<4x16x1024x128xbf16>
}
