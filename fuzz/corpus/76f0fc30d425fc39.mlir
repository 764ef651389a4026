func.func @causal(%q: tensor<2x4x777x64xbf16>, %k: tensor<2x4x333x64xbf16>, %v: tensor<2x4x333x64xbf16>,
                  %q2: tensor<2x4x200x128xbf16>, %k2: tensor<2x4x1111x128xbf16>, %v2: tensor<2x4x1111x128xbf16>,
                  %len: tensor<2xi32>)
    -> (tensor<2x4x777x64xbf16>, tensor<2x4x200x128xbf16>, tensor<2x4x200xf32>) {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<2x4x777x64xbf16>, tensor<2x4x333x64xbf16>, tensor<2x4x333x64xbf16> -> tensor<2x4x777x64xbf16>
  %o2, %lse = attn.flash %q2, %k2, %v2 lengths(%len : tensor<2xi32>) {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x4x200x128xbf16>, tensor<2x4x1111x128xbf16>, tensor<2x4x1111x128xbf16> -> tensor<2x4x200x128xbf16>, tensor<2x4x200xf32>
  return %o, %o2, %lse : tensor<2x4x777x64xbf16>, tensor<2x4x200x128xbf16>, tensor<2x4x200xf32>
}
