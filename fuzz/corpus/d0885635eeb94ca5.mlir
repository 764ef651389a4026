func.func @ws(%q: tensor<1x8x256x64xbf16>, %k: tensor<1x2x256x64xbf16>, %s: tensor<8xf32>)
    -> (tensor<1x8x256x64xbf16>, tensor<1x8x256xf32>) {
  %o, %lse = attn.flash %q, %k, %k sinks(%s : tensor<8xf32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>,
       config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>}
    : tensor<1x8x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x8x256x64xbf16>, tensor<1x8x256xf32>
  return %o, %lse : tensor<1x8x256x64xbf16>, tensor<1x8x256xf32>
}
func.func @varlen(%q: tensor<100x4x64xbf16>, %cq: tensor<3xi32>, %s: tensor<1x4x1x1xf32>) -> tensor<100x4x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) sinks(%s : tensor<1x4x1x1xf32>)
      {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<100x4x64xbf16>, tensor<100x4x64xbf16>, tensor<100x4x64xbf16> -> tensor<100x4x64xbf16>
  return %o : tensor<100x4x64xbf16>
}
func.func @dense(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
