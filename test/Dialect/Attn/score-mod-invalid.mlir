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

// -----

// An op outside the table of ScoreModOps.h is an error at that op.
func.func @unsupported_op(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'math.sincos' op is not supported in a score_mod (it holds the arith ops on i1, i32, i64, index and f32 and the math ops that CUDA has; see ScoreModOps.h)}}
    %sin, %cos = math.sincos %x : f32
    attn.yield %sin : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @unsupported_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %n = arith.index_cast %i : index to i32
    // expected-error @+1 {{'arith.trunci' op computes on 'i8'; a score_mod computes on i1, i32, i64, index and f32}}
    %t = arith.trunci %n : i32 to i8
    %e = arith.extsi %t : i8 to i32
    %f = arith.sitofp %e : i32 to f32
    attn.yield %f : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @unsupported_constant(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'arith.constant' op in a score_mod must be a scalar of i1, i32, i64, index or f32, got 'f64'}}
    %d = arith.constant 1.0 : f64
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @outside_value(%s: tensor<1x1x8x8xf32>, %f: f32) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'arith.addf' op uses a value defined outside the score_mod region that is not a scalar arith.constant}}
    %y = arith.addf %x, %f : f32
    attn.yield %y : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

// A tensor read by the function must be a capture, not a value from above.
func.func @extract_not_a_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'tensor.extract' op in a score_mod must read one of its captures (block arguments 5 and on)}}
    %e = tensor.extract %t[%j] : tensor<8xf32>
    %y = arith.addf %x, %e : f32
    attn.yield %y : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @capture_used_by_other_op(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  %c = attn.score_mod %s captures(%t : tensor<8xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<8xf32>):
    %p = arith.cmpi eq, %i, %j : index
    // expected-error @+1 {{'arith.select' op uses a captured tensor of the score_mod; only tensor.extract may read one}}
    %u = arith.select %p, %tt, %tt : tensor<8xf32>
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @capture_argument_count(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod region needs 6 arguments (score, b, h, q_idx, kv_idx, then one per capture), got 5}}
  %c = attn.score_mod %s captures(%t : tensor<8xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @capture_argument_type(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod argument 5 must be 'tensor<8xf32>' (the type of capture 0), got 'tensor<4xf32>'}}
  %c = attn.score_mod %s captures(%t : tensor<8xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<4xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @too_many_captures(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{has 5 score_mod captures; at most 4}}
  %c = attn.score_mod %s captures(%t, %t, %t, %t, %t : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t0: tensor<8xf32>, %t1: tensor<8xf32>, %t2: tensor<8xf32>, %t3: tensor<8xf32>, %t4: tensor<8xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @dynamic_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<?xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod capture 0 must have a static shape of rank 0 to 4, got 'tensor<?xf32>'}}
  %c = attn.score_mod %s captures(%t : tensor<?xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<?xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @rank5_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<1x1x1x1x2xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod capture 0 must have a static shape of rank 0 to 4, got 'tensor<1x1x1x1x2xf32>'}}
  %c = attn.score_mod %s captures(%t : tensor<1x1x1x1x2xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<1x1x1x1x2xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @f64_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<8xf64>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod capture 0 has element type 'f64'; captures hold f32, f16, bf16, i1, i32 or i64}}
  %c = attn.score_mod %s captures(%t : tensor<8xf64>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<8xf64>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @empty_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<4x0xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod capture 0 is empty (shape 4x0)}}
  %c = attn.score_mod %s captures(%t : tensor<4x0xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<4x0xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}

// -----

func.func @huge_capture(%s: tensor<1x1x8x8xf32>, %t: tensor<1048576x1048576x2xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{score_mod capture 0 has more than 2^40 elements}}
  %c = attn.score_mod %s captures(%t : tensor<1048576x1048576x2xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %tt: tensor<1048576x1048576x2xf32>):
    attn.yield %x : f32
  } : tensor<1x1x8x8xf32>
  return %c : tensor<1x1x8x8xf32>
}
