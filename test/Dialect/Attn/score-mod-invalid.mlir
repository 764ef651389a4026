// RUN: attn-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

func.func @rank(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{input must be a rank-4 score tensor [batch, heads, queries, keys], got rank 2}}
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %x : f32
  } : tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

func.func @arg_count(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod region needs 5 arguments (score, b, h, q_idx, kv_idx), got 1}}
  %c = attn.score_mod %s {
  ^bb0(%x: f32):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @score_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod argument 0 (the score) must be 'f32', got 'f16'}}
  %c = attn.score_mod %s {
  ^bb0(%x: f16, %b: index, %h: index, %i: index, %j: index):
    %y = arith.extf %x : f16 to f32
    attn.yield %y : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @index_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod argument 3 must be index, got 'i32'}}
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: i32, %j: index):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @yield_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod region must yield one 'f32' value}}
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %x, %x : f32, f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @terminator(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod region must end in attn.yield}}
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    "test.terminator"(%x) : (f32) -> ()
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
