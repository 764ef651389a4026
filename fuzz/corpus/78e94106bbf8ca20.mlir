func.func @sm90ws_transposed_k(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x64x8xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, transpose_k, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>} : tensor<1x1x8x64xbf16>, tensor<1x1x64x8xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}
