func.func @sm90_head_dim(%q: tensor<1x1x8x96xbf16>, %k: tensor<1x1x8x96xbf16>, %v: tensor<1x1x8x96xbf16>) -> tensor<1x1x8x96xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, config = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>} : tensor<1x1x8x96xbf16>, tensor<1x1x8x96xbf16>, tensor<1x1x8x96xbf16> -> tensor<1x1x8x96xbf16>
  return %o : tensor<1x1x8x96xbf16>
}
