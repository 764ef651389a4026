func.func @casts_around_softmax(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>) -> tensor<1x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xbf16>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x32x32xbf16>
  %w = arith.extf %t : tensor<1x2x32x32xbf16> to tensor<1x2x32x32xf32>
  %p = attn.softmax %w {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xf32>
  %pb = arith.truncf %p : tensor<1x2x32x32xf32> to tensor<1x2x32x32xbf16>
  %o = attn.matmul %pb, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %o : tensor<1x2x32x64xbf16>
}
