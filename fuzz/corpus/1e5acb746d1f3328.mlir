func.func @gpt_oss(%q: tensor<1200x64x64xbf16>, %k: tensor<1500x8x64xbf16>, %v: tensor<1500x8x64xbf16>,
                   %cq: tensor<6xi32>, %ck: tensor<6xi32>, %s: tensor<64xf32>) -> (tensor<1200x64x64xbf16>, tensor<64x1200xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<6xi32>) cu_seqlens_k(%ck : tensor<6xi32>) sinks(%s : tensor<64xf32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, window = [127, 0], bottom_right>}
    : tensor<1200x64x64xbf16>, tensor<1500x8x64xbf16>, tensor<1500x8x64xbf16> -> tensor<1200x64x64xbf16>, tensor<64x1200xf32>
  return %o, %lse : tensor<1200x64x64xbf16>, tensor<64x1200xf32>
}
