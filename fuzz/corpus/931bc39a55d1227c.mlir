func.func @lengths_without_item(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>, %len: tensor<2xi32>) -> tensor<10x4x64xbf16> {
  %o = attn.flash %q, %q, %q lengths(%len : tensor<2xi32>) cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}
