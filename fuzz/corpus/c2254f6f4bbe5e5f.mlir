func.func @flash_transposed_k_zero_seq(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x0xbf16>, %v: tensor<1x1x0x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, transpose_k} : tensor<1x1x64x64xbf16>, tensor<1x1x64x0xbf16>, tensor<1x1x0x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
