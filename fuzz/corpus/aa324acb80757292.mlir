func.func @masks_and_lse(%q: tensor<2x4x64x64xf16>, %kt: tensor<2x4x64x64xf16>, %v: tensor<2x4x64x64xf16>,
    %len: tensor<2xi32>, %keep: tensor<2x1x64x64xi1>, %bias: tensor<1x4x64x64xf32>) -> (tensor<2x4x64x64xf16>, tensor<2x4x64xf32>) {
  %o, %lse = attn.flash %q, %kt, %v lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x64x64xi1>) bias(%bias : tensor<1x4x64x64xf32>)
      {scale = 1.0 : f32, transpose_k, mask = #attn.mask<window = [16, 0], bottom_right, key_padding, keep, bias>}
      : tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16> -> tensor<2x4x64x64xf16>, tensor<2x4x64xf32>
  return %o, %lse : tensor<2x4x64x64xf16>, tensor<2x4x64xf32>
}
