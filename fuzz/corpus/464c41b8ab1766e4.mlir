func.func @window_bias_backward(%q: tensor<2x8x1500x64xbf16>, %k: tensor<2x8x1500x64xbf16>,
                                %v: tensor<2x8x1500x64xbf16>, %bias: tensor<1x8x1500x1500xbf16>)
    -> tensor<2x8x1500x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs}
      : tensor<2x8x1500x64xbf16>, tensor<2x8x1500x64xbf16> -> tensor<2x8x1500x1500xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x8x1500x1500xf32>
  %m = attn.mask %t bias(%bias : tensor<1x8x1500x1500xbf16>)
      {kind = #attn.mask<window = [256, 0], bias>} : tensor<2x8x1500x1500xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x8x1500x1500xf32> -> tensor<2x8x1500x1500xbf16>
  %o = attn.matmul %p, %v
      : tensor<2x8x1500x1500xbf16>, tensor<2x8x1500x64xbf16> -> tensor<2x8x1500x64xbf16>
  return %o : tensor<2x8x1500x64xbf16>
}
