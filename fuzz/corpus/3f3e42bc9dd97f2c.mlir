func.func @bias(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>, %bias: tensor<1x4x1x1xf32>) -> tensor<10x4x64xbf16> {
  %o = attn.flash %q, %q, %q bias(%bias : tensor<1x4x1x1xf32>) cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<bias>}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}
