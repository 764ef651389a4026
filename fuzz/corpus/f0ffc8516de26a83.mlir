func.func @varlen_prefill(%q: tensor<4096x32x128xbf16>, %k: tensor<4096x8x128xbf16>,
                          %v: tensor<4096x8x128xbf16>, %cu_seqlens_q: tensor<9xi32>,
                          %cu_seqlens_k: tensor<9xi32>)
    -> (tensor<4096x32x128xbf16>, tensor<32x4096xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cu_seqlens_q : tensor<9xi32>)
      cu_seqlens_k(%cu_seqlens_k : tensor<9xi32>)
      {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<4096x32x128xbf16>, tensor<4096x8x128xbf16>, tensor<4096x8x128xbf16>
    -> tensor<4096x32x128xbf16>, tensor<32x4096xf32>
  return %o, %lse : tensor<4096x32x128xbf16>, tensor<32x4096xf32>
}
