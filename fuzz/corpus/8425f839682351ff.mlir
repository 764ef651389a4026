func.func @ragged(%q: tensor<1x8x64xbf16>, %cq: tensor<2xi32>) -> tensor<1x8x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<2xi32>) cu_seqlens_k(%cq : tensor<2xi32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<1x8x64xbf16>, tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return %o : tensor<1x8x64xbf16>
}
