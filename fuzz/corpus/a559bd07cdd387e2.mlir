func.func @hd64(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>,
    %o: tensor<2x8x1024x64xbf16>, %do: tensor<2x8x1024x64xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32}
      : tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>,
        tensor<2x8x1024x64xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>
  return %dq : tensor<2x8x1024x64xbf16>
}
