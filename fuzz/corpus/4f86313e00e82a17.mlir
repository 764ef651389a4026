func.func @transposed(%q: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) {
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %o, %o, %lse {scale = 0.125 : f32, transpose_k,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
      : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return
}
