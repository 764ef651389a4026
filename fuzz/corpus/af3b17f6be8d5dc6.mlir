func.func @transposed_k(%q: tensor<4x8x2048x64xbf16>, %k: tensor<4x8x64x2048xbf16>, %v: tensor<4x8x2048x64xbf16>) -> tensor<4x8x2048x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, transpose_k} : tensor<4x8x2048x64xbf16>, tensor<4x8x64x2048xbf16>, tensor<4x8x2048x64xbf16> -> tensor<4x8x2048x64xbf16>
  return %o : tensor<4x8x2048x64xbf16>
}
