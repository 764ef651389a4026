func.func @head_dim(%q: tensor<1x1x64x60xbf16>, %v: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) {
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %v, %v, %v, %lse {scale = 0.125 : f32,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
      : tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x64xbf16>
  return
}
