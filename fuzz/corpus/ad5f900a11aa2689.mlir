func.func @sinks_gqa_window(%q: tensor<2x8x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>, %s: tensor<8xf32>) -> tensor<2x8x64x64xbf16> {
  %o = attn.flash %q, %k, %v sinks(%s : tensor<8xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, window = [127, 0]>}
    : tensor<2x8x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x8x64x64xbf16>
  return %o : tensor<2x8x64x64xbf16>
}

func.func @sinks_column_varlen(%q: tensor<100x4x64xf16>, %cq: tensor<3xi32>, %s: tensor<1x4x1x1xf32>) -> tensor<100x4x64xf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) sinks(%s : tensor<1x4x1x1xf32>) {scale = 0.125 : f32}
    : tensor<100x4x64xf16>, tensor<100x4x64xf16>, tensor<100x4x64xf16> -> tensor<100x4x64xf16>
  return %o : tensor<100x4x64xf16>
}
