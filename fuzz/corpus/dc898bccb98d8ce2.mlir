func.func @few(%q: tensor<1x2x300x128xbf16>, %k: tensor<1x2x700x128xbf16>, %v: tensor<1x2x700x128xbf16>,
               %q1: tensor<1x1x100x256xbf16>, %k1: tensor<1x1x90x256xbf16>, %v1: tensor<1x1x90x256xbf16>)
    -> (tensor<1x2x300x128xbf16>, tensor<1x1x100x256xbf16>) {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32}
    : tensor<1x2x300x128xbf16>, tensor<1x2x700x128xbf16>, tensor<1x2x700x128xbf16> -> tensor<1x2x300x128xbf16>
  %o1 = attn.flash %q1, %k1, %v1 {scale = 0.0625 : f32}
    : tensor<1x1x100x256xbf16>, tensor<1x1x90x256xbf16>, tensor<1x1x90x256xbf16> -> tensor<1x1x100x256xbf16>
  return %o, %o1 : tensor<1x2x300x128xbf16>, tensor<1x1x100x256xbf16>
}
