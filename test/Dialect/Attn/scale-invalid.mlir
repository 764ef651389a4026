// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @infinite(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{factor must be finite, got INF}}
  %t = attn.scale %s {factor = 0x7F800000 : f32} : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// -----

func.func @nan(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{factor must be finite, got nan}}
  %t = attn.scale %s {factor = 0x7FC00000 : f32} : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// -----

func.func @missing_factor(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{requires attribute 'factor'}}
  %t = attn.scale %s : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}
