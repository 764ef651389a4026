func.func @no_config(%q: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>)
    -> tensor<1x1x64x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %o, %o, %lse {scale = 0.125 : f32}
      : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return %dq : tensor<1x1x64x64xbf16>
}
