func.func @tma_variant(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x4x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}
