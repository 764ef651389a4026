func.func @varlen(%q: tensor<700x4x128xf16>, %k: tensor<700x1x128xf16>, %v: tensor<700x1x128xf16>,
                  %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<700x4x128xf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<4xi32>) cu_seqlens_k(%ck : tensor<4xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal>}
    : tensor<700x4x128xf16>, tensor<700x1x128xf16>, tensor<700x1x128xf16> -> tensor<700x4x128xf16>
  return %o : tensor<700x4x128xf16>
}
