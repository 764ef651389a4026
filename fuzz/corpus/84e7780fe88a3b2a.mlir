func.func @varlen(%q: tensor<900x8x64xbf16>, %k: tensor<1300x2x64xbf16>, %v: tensor<1300x2x64xbf16>,
                  %cq: tensor<8xi32>, %ck: tensor<8xi32>) -> (tensor<900x8x64xbf16>, tensor<8x900xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<8xi32>) cu_seqlens_k(%ck : tensor<8xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<900x8x64xbf16>, tensor<1300x2x64xbf16>, tensor<1300x2x64xbf16> -> tensor<900x8x64xbf16>, tensor<8x900xf32>
  return %o, %lse : tensor<900x8x64xbf16>, tensor<8x900xf32>
}
