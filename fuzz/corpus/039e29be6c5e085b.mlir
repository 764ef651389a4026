func.func @draft16(%q: tensor<4x64x16x64xf16>, %k: tensor<4x8x3000x64xf16>, %v: tensor<4x8x3000x64xf16>,
                   %len: tensor<4xi32>) -> (tensor<4x64x16x64xf16>, tensor<4x64x16xf32>) {
  %o, %lse = attn.flash %q, %k, %v lengths(%len : tensor<4xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x64x16x64xf16>, tensor<4x8x3000x64xf16>, tensor<4x8x3000x64xf16> -> tensor<4x64x16x64xf16>, tensor<4x64x16xf32>
  return %o, %lse : tensor<4x64x16x64xf16>, tensor<4x64x16xf32>
}
