func.func @flash_zero_lengths(%q: tensor<?x1x64x64xbf16>, %k: tensor<?x1x64x64xbf16>, %v: tensor<?x1x64x64xbf16>, %len: tensor<0xi32>) -> tensor<?x1x64x64xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<0xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding>} : tensor<?x1x64x64xbf16>, tensor<?x1x64x64xbf16>, tensor<?x1x64x64xbf16> -> tensor<?x1x64x64xbf16>
  return %o : tensor<?x1x64x64xbf16>
}
