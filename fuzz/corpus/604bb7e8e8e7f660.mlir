func.func @gpt_oss(%q: tensor<2x16x200x64xbf16>, %k: tensor<2x2x200x64xbf16>, %v: tensor<2x2x200x64xbf16>,
                   %sinks: tensor<1x16x1x1xf32>) -> tensor<2x16x200x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x16x200x64xbf16>, tensor<2x2x200x64xbf16> -> tensor<2x16x200x200xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x16x200x200xf32>
  %m = attn.mask %t {kind = #attn.mask<causal, window = [127, 0]>} : tensor<2x16x200x200xf32>
  %zero = arith.constant dense<0.0> : tensor<2x16x200x1xf32>
  %col = attn.mask %zero bias(%sinks : tensor<1x16x1x1xf32>) {kind = #attn.mask<bias>} : tensor<2x16x200x1xf32>
  %cat = tensor.concat dim(3) %m, %col : (tensor<2x16x200x200xf32>, tensor<2x16x200x1xf32>) -> tensor<2x16x200x201xf32>
  %p = attn.softmax %cat {dim = 3} : tensor<2x16x200x201xf32> -> tensor<2x16x200x201xbf16>
  %pk = tensor.extract_slice %p[0, 0, 0, 0] [2, 16, 200, 200] [1, 1, 1, 1] : tensor<2x16x200x201xbf16> to tensor<2x16x200x200xbf16>
  %o = attn.matmul %pk, %v : tensor<2x16x200x200xbf16>, tensor<2x2x200x64xbf16> -> tensor<2x16x200x64xbf16>
  return %o : tensor<2x16x200x64xbf16>
}
