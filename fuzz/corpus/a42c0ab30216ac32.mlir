func.func @prefill(%q: tensor<3x16x200x128xf16>, %kc: tensor<100x4x32x128xf16>, %vc: tensor<100x4x32x128xf16>,
                   %len: tensor<3xi32>, %table: tensor<3x32xi32>, %s: tensor<16xf32>) -> (tensor<3x16x200x128xf16>, tensor<3x16x200xf32>) {
  %o, %lse = attn.flash %q, %kc, %vc lengths(%len : tensor<3xi32>) sinks(%s : tensor<16xf32>) block_table(%table : tensor<3x32xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, window = [255, 0], bottom_right, key_padding>}
    : tensor<3x16x200x128xf16>, tensor<100x4x32x128xf16>, tensor<100x4x32x128xf16> -> tensor<3x16x200x128xf16>, tensor<3x16x200xf32>
  return %o, %lse : tensor<3x16x200x128xf16>, tensor<3x16x200xf32>
}
