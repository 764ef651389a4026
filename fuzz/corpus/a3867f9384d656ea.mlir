func.func @lse_shape(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>) -> (tensor<10x4x64xbf16>, tensor<10x4xf32>) {
  %o, %l = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>, tensor<10x4xf32>
  return %o, %l : tensor<10x4x64xbf16>, tensor<10x4xf32>
}
