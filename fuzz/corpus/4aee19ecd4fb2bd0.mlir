func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x32xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x16xbf16>
  return
}
