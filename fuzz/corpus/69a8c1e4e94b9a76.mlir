func.func @split(%q: tensor<1x1x64x40xbf16>, %lse: tensor<1x1x64xf32>) {
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %q, %q, %lse {scale = 0.125 : f32,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 2>}
      : tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>,
        tensor<1x1x64x40xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>
  return
}
