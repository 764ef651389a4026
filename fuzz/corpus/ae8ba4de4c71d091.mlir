func.func @no_sequence(%q: tensor<10x2x64xbf16>, %cq: tensor<1xi32>) -> tensor<10x2x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<1xi32>) cu_seqlens_k(%cq : tensor<1xi32>) {scale = 1.0 : f32}
    : tensor<10x2x64xbf16>, tensor<10x2x64xbf16>, tensor<10x2x64xbf16> -> tensor<10x2x64xbf16>
  return %o : tensor<10x2x64xbf16>
}
