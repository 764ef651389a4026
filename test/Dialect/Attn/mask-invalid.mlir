// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @rank(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{input must be a rank-4 score tensor [batch, heads, queries, keys], got rank 2}}
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

func.func @empty(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{kind #attn.mask<> names no mask}}
  %m = attn.mask %s {kind = #attn.mask<>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @needs_lengths(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{mask item 'key_padding' needs a 'lengths' operand}}
  %m = attn.mask %s {kind = #attn.mask<key_padding>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @stray_lengths(%s: tensor<1x1x8x8xf32>, %len: tensor<1xi32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{has a 'lengths' operand but the mask has no 'key_padding' item}}
  %m = attn.mask %s lengths(%len : tensor<1xi32>) {kind = #attn.mask<causal>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @needs_keep(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{mask item 'keep' needs a 'keep' operand}}
  %m = attn.mask %s {kind = #attn.mask<keep>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @stray_bias(%s: tensor<1x1x8x8xf32>, %b: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{has a 'bias' operand but the mask has no 'bias' item}}
  %m = attn.mask %s bias(%b : tensor<1x1x8x8xf32>) {kind = #attn.mask<causal>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @needs_bias(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{mask item 'bias' needs a 'bias' operand}}
  %m = attn.mask %s {kind = #attn.mask<bias>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @lengths_shape(%s: tensor<2x1x8x8xf32>, %len: tensor<3xi32>) -> tensor<2x1x8x8xf32> {
  // expected-error @+1 {{'lengths' operand must be tensor<2xi32> (one length per batch), got 3}}
  %m = attn.mask %s lengths(%len : tensor<3xi32>) {kind = #attn.mask<key_padding>} : tensor<2x1x8x8xf32>
  return %m : tensor<2x1x8x8xf32>
}

// -----

func.func @keep_rank(%s: tensor<2x1x8x8xf32>, %k: tensor<8x8xi1>) -> tensor<2x1x8x8xf32> {
  // expected-error @+1 {{'keep' operand has rank 2 (shape 8x8), expected rank 4 to broadcast to 2x1x8x8}}
  %m = attn.mask %s keep(%k : tensor<8x8xi1>) {kind = #attn.mask<keep>} : tensor<2x1x8x8xf32>
  return %m : tensor<2x1x8x8xf32>
}

// -----

func.func @bias_dim(%s: tensor<2x4x8x8xf32>, %b: tensor<1x3x8x8xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{'bias' operand dimension 1 is 3, expected 1 or 4 to broadcast to 2x4x8x8}}
  %m = attn.mask %s bias(%b : tensor<1x3x8x8xf32>) {kind = #attn.mask<bias>} : tensor<2x4x8x8xf32>
  return %m : tensor<2x4x8x8xf32>
}

// -----

func.func @keep_type(%s: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xi8>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{operand #1 must be ranked tensor of 1-bit signless integer values, but got 'tensor<1x1x8x8xi8>'}}
  %m = attn.mask %s keep(%k : tensor<1x1x8x8xi8>) {kind = #attn.mask<keep>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}
