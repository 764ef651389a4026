func.func @hd_not_multiple_of_8(%q: tensor<1x1x64x60xbf16>, %k: tensor<1x1x64x60xbf16>, %v: tensor<1x1x64x60xbf16>,
    %o: tensor<1x1x64x60xbf16>, %do: tensor<1x1x64x60xbf16>, %lse: tensor<1x1x64xf32>) -> tensor<1x1x64x60xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32}
      : tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>,
        tensor<1x1x64x60xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>
  return %dq : tensor<1x1x64x60xbf16>
}
