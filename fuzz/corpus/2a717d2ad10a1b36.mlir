func.func @windows_intersect(%q: tensor<1x1x256x64xbf16>, %k: tensor<1x1x256x64xbf16>, %v: tensor<1x1x256x64xbf16>) -> tensor<1x1x256x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16> -> tensor<1x1x256x256xf32>
  %a = attn.mask %s {kind = #attn.mask<window = [128, 8]>} : tensor<1x1x256x256xf32>
  %b = attn.mask %a {kind = #attn.mask<causal, window = [64, -1]>} : tensor<1x1x256x256xf32>
  %p = attn.softmax %b {dim = 3} : tensor<1x1x256x256xf32> -> tensor<1x1x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<1x1x256x256xbf16>, tensor<1x1x256x64xbf16> -> tensor<1x1x256x64xbf16>
  return %o : tensor<1x1x256x64xbf16>
}
