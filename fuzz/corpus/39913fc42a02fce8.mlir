func.func @clamped(%q: tensor<300x4x64xbf16>, %k: tensor<500x2x64xbf16>, %v: tensor<500x2x64xbf16>,
                   %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> (tensor<300x4x64xbf16>, tensor<4x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<5xi32>) cu_seqlens_k(%ck : tensor<5xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<300x4x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16> -> tensor<300x4x64xbf16>, tensor<4x300xf32>
  return %o, %lse : tensor<300x4x64xbf16>, tensor<4x300xf32>
}
