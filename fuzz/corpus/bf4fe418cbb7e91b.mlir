func.func @varlen(%q: tensor<300x8x64xbf16>, %k: tensor<500x2x64xbf16>, %v: tensor<500x2x64xbf16>,
                  %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> (tensor<300x8x64xbf16>, tensor<8x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<5xi32>) cu_seqlens_k(%ck : tensor<5xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>,
       config = #attn.config<variant = "sm90", block_m = 128, block_n = 64, num_warps = 8, stages = 2>}
    : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16> -> tensor<300x8x64xbf16>, tensor<8x300xf32>
  return %o, %lse : tensor<300x8x64xbf16>, tensor<8x300xf32>
}
func.func @varlen_hd40(%q: tensor<?x4x40xf16>, %cq: tensor<3xi32>) -> tensor<?x4x40xf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 1>}
    : tensor<?x4x40xf16>, tensor<?x4x40xf16>, tensor<?x4x40xf16> -> tensor<?x4x40xf16>
  return %o : tensor<?x4x40xf16>
}
func.func @dense(%q: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
