func.func @key_tokens(%q: tensor<10x4x64xbf16>, %k: tensor<12x2x64xbf16>, %v: tensor<11x2x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x4x64xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<12x2x64xbf16>, tensor<11x2x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}
