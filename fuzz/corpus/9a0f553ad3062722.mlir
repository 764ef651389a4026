func.func @hd128(%q: tensor<2x8x1024x128xbf16>, %k: tensor<2x8x1024x128xbf16>, %v: tensor<2x8x1024x128xbf16>,
    %o: tensor<2x8x1024x128xbf16>, %do: tensor<2x8x1024x128xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x128xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32}
      : tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>,
        tensor<2x8x1024x128xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>
  return %dq : tensor<2x8x1024x128xbf16>
}
