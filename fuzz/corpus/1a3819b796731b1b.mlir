func.func @decode(%q: tensor<64x32x128xbf16>, %k: tensor<5000x8x128xbf16>, %v: tensor<5000x8x128xbf16>,
                  %cq: tensor<65xi32>, %ck: tensor<65xi32>) -> (tensor<64x32x128xbf16>, tensor<32x64xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<65xi32>) cu_seqlens_k(%ck : tensor<65xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<64x32x128xbf16>, tensor<5000x8x128xbf16>, tensor<5000x8x128xbf16> -> tensor<64x32x128xbf16>, tensor<32x64xf32>
  return %o, %lse : tensor<64x32x128xbf16>, tensor<32x64xf32>
}
