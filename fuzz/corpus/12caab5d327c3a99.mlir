func.func @clamped(%q: tensor<4x4x2x64xbf16>, %kc: tensor<10x2x16x64xbf16>, %vc: tensor<10x2x16x64xbf16>,
                   %len: tensor<4xi32>, %table: tensor<4x4xi32>) -> (tensor<4x4x2x64xbf16>, tensor<4x4x2xf32>) {
  %o, %lse = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x4xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x4x2x64xbf16>, tensor<10x2x16x64xbf16>, tensor<10x2x16x64xbf16> -> tensor<4x4x2x64xbf16>, tensor<4x4x2xf32>
  return %o, %lse : tensor<4x4x2x64xbf16>, tensor<4x4x2xf32>
}
