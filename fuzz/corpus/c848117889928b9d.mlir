func.func @hd192x128(%q: tensor<2x4x256x192xbf16>, %k: tensor<2x4x256x192xbf16>, %v: tensor<2x4x256x128xbf16>) -> tensor<2x4x256x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x256x192xbf16>, tensor<2x4x256x192xbf16> -> tensor<2x4x256x256xf32>
  %t = attn.scale %s {factor = 0.0721687836 : f32} : tensor<2x4x256x256xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x256x256xf32> -> tensor<2x4x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x256x256xbf16>, tensor<2x4x256x128xbf16> -> tensor<2x4x256x128xbf16>
  return %o : tensor<2x4x256x128xbf16>
}
