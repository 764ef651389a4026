func.func @ragged(%q: tensor<10x4x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %cq: tensor<3xi32>, %t: tensor<2x4xi32>) -> tensor<10x4x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}
