func.func @gpt_oss(%q: tensor<2x8x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>, %sinks: tensor<1x8x1x1xf32>) -> tensor<2x8x64x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x8x64x64xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x8x64x64xf32>
  %m = attn.mask %t {kind = #attn.mask<causal, window = [31, 0]>} : tensor<2x8x64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<2x8x64x1xf32>
  %col = attn.mask %zero bias(%sinks : tensor<1x8x1x1xf32>) {kind = #attn.mask<bias>} : tensor<2x8x64x1xf32>
  %cat = tensor.concat dim(3) %m, %col : (tensor<2x8x64x64xf32>, tensor<2x8x64x1xf32>) -> tensor<2x8x64x65xf32>
  %p = attn.softmax %cat {dim = 3} : tensor<2x8x64x65xf32> -> tensor<2x8x64x65xf32>
  %pk = tensor.extract_slice %p[0, 0, 0, 0] [2, 8, 64, 64] [1, 1, 1, 1] : tensor<2x8x64x65xf32> to tensor<2x8x64x64xf32>
  %ph = arith.truncf %pk : tensor<2x8x64x64xf32> to tensor<2x8x64x64xbf16>
  %o = attn.matmul %ph, %v : tensor<2x8x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x8x64x64xbf16>
  return %o : tensor<2x8x64x64xbf16>
}
