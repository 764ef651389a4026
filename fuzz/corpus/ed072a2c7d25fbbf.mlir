func.func @keep_keys(%q: tensor<2x2x100x128xbf16>, %k: tensor<2x2x120x128xbf16>, %v: tensor<2x2x120x128xbf16>, %keep: tensor<2x1x1x120xi1>) -> tensor<2x2x100x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x100x128xbf16>, tensor<2x2x120x128xbf16> -> tensor<2x2x100x120xf32>
  %t = attn.scale %s {factor = 0.0883883 : f32} : tensor<2x2x100x120xf32>
  %m = attn.mask %t keep(%keep : tensor<2x1x1x120xi1>) {kind = #attn.mask<keep>} : tensor<2x2x100x120xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x100x120xf32> -> tensor<2x2x100x120xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x100x120xbf16>, tensor<2x2x120x128xbf16> -> tensor<2x2x100x128xbf16>
  return %o : tensor<2x2x100x128xbf16>
}
