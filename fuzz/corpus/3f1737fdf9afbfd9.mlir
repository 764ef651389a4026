func.func @dense_rank(%q: tensor<1x2x10x64xbf16>, %cq: tensor<3xi32>) -> tensor<1x2x10x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<1x2x10x64xbf16>, tensor<1x2x10x64xbf16>, tensor<1x2x10x64xbf16> -> tensor<1x2x10x64xbf16>
  return %o : tensor<1x2x10x64xbf16>
}
