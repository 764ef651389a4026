func.func @keep(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>, %keep: tensor<1x1x10x10xi1>) -> tensor<10x4x64xbf16> {
  %o = attn.flash %q, %q, %q keep(%keep : tensor<1x1x10x10xi1>) cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<keep>}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}
