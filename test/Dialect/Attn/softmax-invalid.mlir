// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @dim_range(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{dim 4 is out of range for rank 4 (expected -4 to 3)}}
  %p = attn.softmax %s {dim = 4} : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32>
  return %p : tensor<1x1x8x8xf32>
}

// -----

func.func @negative_dim(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{dim -5 is out of range for rank 4 (expected -4 to 3)}}
  %p = attn.softmax %s {dim = -5} : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32>
  return %p : tensor<1x1x8x8xf32>
}

// -----

func.func @shape(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x4xbf16> {
  // expected-error @+1 {{result shape 1x1x8x4 differs from input shape 1x1x8x8}}
  %p = attn.softmax %s {dim = 3} : tensor<1x1x8x8xf32> -> tensor<1x1x8x4xbf16>
  return %p : tensor<1x1x8x4xbf16>
}
