func.func @dynamic_head_dim(%q: tensor<1x1x8x?xbf16>, %k: tensor<1x1x8x?xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x?xbf16>, tensor<1x1x8x?xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}
