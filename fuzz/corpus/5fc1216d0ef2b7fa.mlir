func.func @window(%q: tensor<2x4x900x64xbf16>, %k: tensor<2x4x900x64xbf16>, %v: tensor<2x4x900x64xbf16>) -> tensor<2x4x900x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<window = [100, 37]>} : tensor<2x4x900x64xbf16>, tensor<2x4x900x64xbf16>, tensor<2x4x900x64xbf16> -> tensor<2x4x900x64xbf16>
  return %o : tensor<2x4x900x64xbf16>
}
