// The ragged batch of attn-run-poison-padding.test.
func.func @f(%q: tensor<6x4x32xbf16>, %k: tensor<12x2x32xbf16>, %v: tensor<12x2x32xbf16>,
             %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<6x4x32xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%ck : tensor<3xi32>)
      {scale = 0.25 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<6x4x32xbf16>, tensor<12x2x32xbf16>, tensor<12x2x32xbf16> -> tensor<6x4x32xbf16>
  return %o : tensor<6x4x32xbf16>
}
