func.func @output_shape(%q: tensor<10x4x64xbf16>, %k: tensor<12x2x64xbf16>, %cq: tensor<3xi32>) -> tensor<12x4x64xbf16> {
  %o = attn.flash %q, %k, %k cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<12x2x64xbf16>, tensor<12x2x64xbf16> -> tensor<12x4x64xbf16>
  return %o : tensor<12x4x64xbf16>
}
