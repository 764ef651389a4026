func.func @hd72(%q: tensor<2x4x200x72xbf16>, %k: tensor<2x1x300x72xbf16>, %v: tensor<2x1x300x72xbf16>) -> tensor<2x4x200x72xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.11785113019775793 : f32} : tensor<2x4x200x72xbf16>, tensor<2x1x300x72xbf16>, tensor<2x1x300x72xbf16> -> tensor<2x4x200x72xbf16>
  return %o : tensor<2x4x200x72xbf16>
}
