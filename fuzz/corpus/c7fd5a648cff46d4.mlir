func.func @varlen_hd96(%q: tensor<100x4x96xf16>, %cq: tensor<3xi32>) -> tensor<100x4x96xf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 0.1 : f32}
    : tensor<100x4x96xf16>, tensor<100x4x96xf16>, tensor<100x4x96xf16> -> tensor<100x4x96xf16>
  return %o : tensor<100x4x96xf16>
}
