func.func @arith_exported(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>, %bias: tensor<1x2x32x32xf32>) -> tensor<1x2x32x64xbf16> {
  %half = arith.constant dense<0.5> : tensor<1x2x32x64xbf16>
  %qs = arith.mulf %q, %half : tensor<1x2x32x64xbf16>
  %s = attn.matmul %qs, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %sqrt_d = arith.constant dense<8.0> : tensor<1x2x32x32xf32>
  %t = arith.divf %s, %sqrt_d : tensor<1x2x32x32xf32>
  %b = arith.addf %bias, %t : tensor<1x2x32x32xf32>
  %m = attn.mask %b {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = -1} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %o : tensor<1x2x32x64xbf16>
}
