func.func @decode(%q: tensor<8x32x1x128xbf16>, %kc: tensor<512x8x16x128xbf16>, %len: tensor<8xi32>, %t: tensor<8x64xi32>) -> tensor<8x32x1x128xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<8xi32>) block_table(%t : tensor<8x64xi32>)
      {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>,
       config = #attn.config<variant = "sm90", block_m = 64, block_n = 128, num_warps = 4, stages = 2>}
    : tensor<8x32x1x128xbf16>, tensor<512x8x16x128xbf16>, tensor<512x8x16x128xbf16> -> tensor<8x32x1x128xbf16>
  return %o : tensor<8x32x1x128xbf16>
}
func.func @prefill(%q: tensor<?x4x100x64xf16>, %kc: tensor<?x4x?x64xf16>, %len: tensor<?xi32>, %s: tensor<4xf32>, %t: tensor<?x?xi32>)
    -> (tensor<?x4x100x64xf16>, tensor<?x4x100xf32>) {
  %o, %l = attn.flash %q, %kc, %kc lengths(%len : tensor<?xi32>) sinks(%s : tensor<4xf32>) block_table(%t : tensor<?x?xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<key_padding>,
       config = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 2>}
    : tensor<?x4x100x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16> -> tensor<?x4x100x64xf16>, tensor<?x4x100xf32>
  return %o, %l : tensor<?x4x100x64xf16>, tensor<?x4x100xf32>
}
func.func @dense(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
