func.func @window_wide_key_padding(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x700x64xbf16>, %v: tensor<2x4x700x64xbf16>, %len: tensor<2xi32>) -> tensor<2x4x300x64xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) {scale = 0.125 : f32, mask = #attn.mask<window = [2147483647, 2147483600], key_padding>} : tensor<2x4x300x64xbf16>, tensor<2x4x700x64xbf16>, tensor<2x4x700x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
