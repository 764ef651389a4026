func.func @sliding_window_bias(%q: tensor<2x8x4096x64xbf16>, %k: tensor<2x8x4096x64xbf16>,
                               %v: tensor<2x8x4096x64xbf16>,
                               %bias: tensor<1x8x4096x4096xf32>) -> tensor<2x8x4096x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs}
      : tensor<2x8x4096x64xbf16>, tensor<2x8x4096x64xbf16> -> tensor<2x8x4096x4096xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x8x4096x4096xf32>
  %b = attn.mask %t bias(%bias : tensor<1x8x4096x4096xf32>) {kind = #attn.mask<bias>}
      : tensor<2x8x4096x4096xf32>
  %w = attn.mask %b {kind = #attn.mask<causal, window = [512, 0]>} : tensor<2x8x4096x4096xf32>
  %p = attn.softmax %w {dim = 3} : tensor<2x8x4096x4096xf32> -> tensor<2x8x4096x4096xbf16>
  %o = attn.matmul %p, %v
      : tensor<2x8x4096x4096xbf16>, tensor<2x8x4096x64xbf16> -> tensor<2x8x4096x64xbf16>
  return %o : tensor<2x8x4096x64xbf16>
}
