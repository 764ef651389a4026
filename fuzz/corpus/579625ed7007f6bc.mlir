func.func @token_extent(%q: tensor<0x4x64xbf16>, %cq: tensor<3xi32>) -> tensor<0x4x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<0x4x64xbf16>, tensor<0x4x64xbf16>, tensor<0x4x64xbf16> -> tensor<0x4x64xbf16>
  return %o : tensor<0x4x64xbf16>
}
