func.func @f32_inputs(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x8x64xf32>, %v: tensor<1x1x8x64xf32>) -> tensor<1x1x8x64xf32> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32> -> tensor<1x1x8x64xf32>
  return %o : tensor<1x1x8x64xf32>
}
