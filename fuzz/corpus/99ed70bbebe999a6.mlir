func.func @decode_padded(%q: tensor<3x6x1x64xf16>, %k: tensor<3x1x3000x64xf16>, %v: tensor<3x1x3000x64xf16>, %len: tensor<3xi32>) -> tensor<3x6x1x64xf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<3xi32>) {scale = 0.125 : f32, mask = #attn.mask<key_padding>}
    : tensor<3x6x1x64xf16>, tensor<3x1x3000x64xf16>, tensor<3x1x3000x64xf16> -> tensor<3x6x1x64xf16>
  return %o : tensor<3x6x1x64xf16>
}
