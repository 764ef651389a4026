func.func @plain(%q: tensor<2x8x512x128xbf16>, %k: tensor<2x8x512x128xbf16>, %v: tensor<2x8x512x128xbf16>) -> tensor<2x8x512x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32, config = #attn.config<variant = "sm80", block_m = 128, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<2x8x512x128xbf16>, tensor<2x8x512x128xbf16>, tensor<2x8x512x128xbf16> -> tensor<2x8x512x128xbf16>
  return %o : tensor<2x8x512x128xbf16>
}
