func.func @varlen_hd128(%q: tensor<4096x32x128xbf16>, %k: tensor<4096x8x128xbf16>, %v: tensor<4096x8x128xbf16>,
                        %cq: tensor<9xi32>, %ck: tensor<9xi32>) -> tensor<4096x32x128xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<9xi32>) cu_seqlens_k(%ck : tensor<9xi32>)
      {scale = 0.088388 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<4096x32x128xbf16>, tensor<4096x8x128xbf16>, tensor<4096x8x128xbf16> -> tensor<4096x32x128xbf16>
  return %o : tensor<4096x32x128xbf16>
}
