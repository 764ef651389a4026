func.func @only_q_offsets(%q: tensor<10x2x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x2x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x2x64xbf16>, tensor<10x2x64xbf16>, tensor<10x2x64xbf16> -> tensor<10x2x64xbf16>
  return %o : tensor<10x2x64xbf16>
}
