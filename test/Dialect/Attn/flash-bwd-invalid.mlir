// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @f(%q: tensor<8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'q' must be rank 4 [batch, heads, seq, head_dim], got shape 8x16}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<2x8x16xbf16>, %do: tensor<2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'o' must be rank 4 [batch, heads, seq, head_dim], got shape 2x8x16}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xf16>, %do: tensor<1x2x8x16xf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{q, k, v and o must share an element type, got 'bf16', 'bf16', 'bf16', 'f16'}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x8xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'grad_output' has type 'tensor<1x2x8x8xbf16>', expected the type of 'o', 'tensor<1x2x8x16xbf16>'}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<2x1x8x16xbf16>, %v: tensor<2x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{batch (dimension 0) mismatch: 'q' has 1 but 'k' has 2}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<2x1x8x16xbf16>, tensor<2x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<2x1x8x16xbf16>, tensor<2x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<2x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{batch (dimension 0) mismatch: 'k' has 1 but 'v' has 2}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<2x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<2x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{heads (dimension 1) mismatch: 'k' has 1 but 'v' has 2}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x9x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{key sequence mismatch: 'k' dimension 2 has 8 but 'v' dimension 2 has 9}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x9x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x9x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x32xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{head dim mismatch: 'q' dimension 3 has 16 but 'k' dimension 3 has 32}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x?x8x16xbf16>, %do: tensor<1x?x8x16xbf16>, %lse: tensor<1x?x8xf32>) {
  // expected-error @+1 {{heads (dimension 1) of q and k must be static}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x?x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x?x8x16xbf16>, tensor<1x?x8x16xbf16>, tensor<1x?x8xf32> -> tensor<1x?x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x3x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x3x8x16xbf16>, %do: tensor<1x3x8x16xbf16>, %lse: tensor<1x3x8xf32>) {
  // expected-error @+1 {{kv heads 2 must divide q heads 3 (GQA/MQA)}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x3x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x3x8x16xbf16>, tensor<1x3x8x16xbf16>, tensor<1x3x8xf32> -> tensor<1x3x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x7x16xbf16>, %do: tensor<1x2x7x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'o' shape 1x2x7x16 does not match the forward's output shape 1x2x8x16 at dimension 2}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x7x16xbf16>, tensor<1x2x7x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8x1xf32>) {
  // expected-error @+1 {{'lse' must have shape 1x2x8, got 1x2x8x1}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'grad_q' has type 'tensor<1x2x8x16xf16>', expected 'tensor<1x2x8x16xbf16>'}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'grad_k' has type 'tensor<1x2x8x16xbf16>', expected 'tensor<1x1x8x16xbf16>'}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'grad_v' has type 'tensor<1x1x16x8xbf16>', expected 'tensor<1x1x8x16xbf16>'}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x16x8xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{has a 'grad_bias' result but no 'bias' operand}}
  %r0, %r1, %r2, %r3 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>, %bias: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'grad_bias' has type 'tensor<1x2x8x8xbf16>', expected the type of 'bias', 'tensor<1x2x8x8xf32>'}}
  %r0, %r1, %r2, %r3 = attn.flash_bwd %q, %k, %v, %o, %do, %lse bias(%bias : tensor<1x2x8x8xf32>) {scale = 1.0 : f32, mask = #attn.mask<bias>}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x8xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{scale must be finite, got INF}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0x7F800000 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{mask item 'key_padding' needs a 'lengths' operand}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{needs both a score_mod and a score_mod_grad region, or neither}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      attn.yield %x : f32
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{score_mod region needs 5 arguments (score, b, h, q_idx, kv_idx), got 1}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32):
      attn.yield %x : f32
  } score_mod_grad {
    ^bb0(%x: f32):
      attn.yield %x : f32
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{score_mod_grad region must take the arguments of the score_mod region (score, b, h, q_idx, kv_idx, then one per capture)}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      attn.yield %x : f32
  } score_mod_grad {
    ^bb0(%x: f32, %b: index):
      attn.yield %x : f32
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{score_mod_grad region must end in attn.yield of one f32 (the derivative)}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      attn.yield %x : f32
  } score_mod_grad {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      attn.yield %x, %x : f32, f32
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{score_mod_grad region must end in attn.yield of one f32 (the derivative)}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      attn.yield %x : f32
  } score_mod_grad {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

// The derivative region holds the ops of the score_mod table too.
func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      attn.yield %x : f32
  } score_mod_grad {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      // expected-error @+1 {{'math.sincos' op is not supported in a score_mod}}
      %s, %c = math.sincos %x : f32
      attn.yield %s : f32
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>, %c: tensor<2xf32>) {
  // expected-error @+1 {{has score_mod captures but no score_mod region}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse captures(%c : tensor<2xf32>) {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>, %c: tensor<2xf64>) {
  // expected-error @+1 {{score_mod capture 0 has element type 'f64'; captures hold f32, f16, bf16, i1, i32 or i64}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse captures(%c : tensor<2xf64>) {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<2xf64>):
      attn.yield %x : f32
  } score_mod_grad {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<2xf64>):
      attn.yield %x : f32
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>, %c: tensor<2xf32>) {
  // expected-error @+1 {{score_mod argument 5 must be 'tensor<2xf32>' (the type of capture 0), got 'tensor<3xf32>'}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse captures(%c : tensor<2xf32>) {scale = 1.0 : f32} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<3xf32>):
      attn.yield %x : f32
  } score_mod_grad {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<3xf32>):
      attn.yield %x : f32
  }
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x0x8x16xbf16>, %v: tensor<1x0x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'k' dimension 1 (heads) is 0; extents must be between 1 and 2147483647}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x0x8x16xbf16>, tensor<1x0x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x16xbf16>, tensor<1x0x8x16xbf16>, tensor<1x0x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x4294967297xf32>) {
  // expected-error @+1 {{'lse' dimension 2 is 4294967297; extents must be between 1 and 2147483647}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x4294967297xf32> -> tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x2x8x?xbf16>, %k: tensor<1x1x8x?xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %do: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8xf32>) {
  // expected-error @+1 {{head dim (dimension 3) of 'q' must be static}}
  %r0, %r1, %r2 = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<1x2x8x?xbf16>, tensor<1x1x8x?xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32> -> tensor<1x2x8x?xbf16>, tensor<1x1x8x?xbf16>, tensor<1x1x8x16xbf16>
  return
}

// -----

// A configured backward: the variant's rules (KernelVariants.h) on the
// operands.
func.func @transposed(%q: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) {
  // expected-error @+1 {{backward variant sm80 needs an untransposed k ([batch, heads, seq, dim]; the reference evaluates a transposed one)}}
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %o, %o, %lse {scale = 0.125 : f32, transpose_k,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
      : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return
}

// -----

func.func @head_dim(%q: tensor<1x1x64x60xbf16>, %v: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) {
  // expected-error @+1 {{backward variant sm80 needs head dims that are multiples of 8 up to 256, got 60/64}}
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %v, %v, %v, %lse {scale = 0.125 : f32,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
      : tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x64xbf16>
  return
}

// -----

func.func @split(%q: tensor<1x1x64x40xbf16>, %lse: tensor<1x1x64xf32>) {
  // expected-error @+1 {{the config splits head dims 40/40 over 4 warps per 16 keys, which does not give whole 8-column tiles}}
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %q, %q, %lse {scale = 0.125 : f32,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 2>}
      : tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>,
        tensor<1x1x64x40xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>
  return
}

// -----

func.func @sinks_shape(%q: tensor<1x4x64x64xbf16>, %lse: tensor<1x4x64xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'sinks' must hold one logit per query head, shape 4 or 1x4x1x1, got 2}}
  %dq, %dk, %dv, %ds = attn.flash_bwd %q, %q, %q, %q, %q, %lse sinks(%s : tensor<2xf32>) {scale = 0.125 : f32}
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>,
        tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
      -> tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
  return
}

// -----

// The generic form can drop the gradient the custom form implies.
func.func @sinks_without_grad(%q: tensor<1x4x64x64xbf16>, %lse: tensor<1x4x64xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{has a 'sinks' operand but no 'grad_sinks' result}}
  %g:3 = "attn.flash_bwd"(%q, %q, %q, %q, %q, %lse, %s) <{
      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1>,
      resultSegmentSizes = array<i32: 1, 1, 1, 0, 0>, scale = 0.125 : f32}> ({}, {})
      : (tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>,
         tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>, tensor<4xf32>)
      -> (tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>)
  return
}

// -----

func.func @grad_sinks_type(%q: tensor<1x4x64x64xbf16>, %lse: tensor<1x4x64xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'grad_sinks' has type 'tensor<1x4x1x1xf32>', expected the type of 'sinks', 'tensor<4xf32>'}}
  %g:4 = "attn.flash_bwd"(%q, %q, %q, %q, %q, %lse, %s) <{
      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1>,
      resultSegmentSizes = array<i32: 1, 1, 1, 0, 1>, scale = 0.125 : f32}> ({}, {})
      : (tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>,
         tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>, tensor<4xf32>)
      -> (tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x1x1xf32>)
  return
}

// -----

func.func @ragged_lse(%q: tensor<300x8x64xbf16>, %k: tensor<500x2x64xbf16>, %lse: tensor<300x8xf32>, %c: tensor<4xi32>) {
  // expected-error @+1 {{'lse' must have shape 8x300, got 300x8}}
  %g:3 = attn.flash_bwd %q, %k, %k, %q, %q, %lse cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>) {scale = 0.125 : f32}
      : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8xf32>
      -> tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>
  return
}

// -----

func.func @ragged_rank(%q: tensor<1x8x300x64xbf16>, %lse: tensor<8x300xf32>, %c: tensor<4xi32>) {
  // expected-error @+1 {{'q' must be rank 3 [tokens, heads, head_dim] with cu_seqlens, got shape 1x8x300x64}}
  %g:3 = attn.flash_bwd %q, %q, %q, %q, %q, %lse cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>) {scale = 0.125 : f32}
      : tensor<1x8x300x64xbf16>, tensor<1x8x300x64xbf16>, tensor<1x8x300x64xbf16>, tensor<1x8x300x64xbf16>, tensor<1x8x300x64xbf16>, tensor<8x300xf32>
      -> tensor<1x8x300x64xbf16>, tensor<1x8x300x64xbf16>, tensor<1x8x300x64xbf16>
  return
}

// -----

func.func @ragged_one_offsets(%q: tensor<300x8x64xbf16>, %lse: tensor<8x300xf32>, %c: tensor<4xi32>) {
  // expected-error @+1 {{'cu_seqlens_q' and 'cu_seqlens_k' go together}}
  %g:3 = "attn.flash_bwd"(%q, %q, %q, %q, %q, %lse, %c) <{
      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0>,
      resultSegmentSizes = array<i32: 1, 1, 1, 0, 0>, scale = 0.125 : f32}> ({}, {})
      : (tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>,
         tensor<300x8x64xbf16>, tensor<8x300xf32>, tensor<4xi32>)
      -> (tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>)
  return
}

// -----

func.func @ragged_key_padding(%q: tensor<300x8x64xbf16>, %lse: tensor<8x300xf32>, %c: tensor<4xi32>, %len: tensor<3xi32>) {
  // expected-error @+1 {{mask item 'key_padding' is not supported with cu_seqlens}}
  %g:3 = attn.flash_bwd %q, %q, %q, %q, %q, %lse lengths(%len : tensor<3xi32>) cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<key_padding>}
      : tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<8x300xf32>
      -> tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>
  return
}

// -----

func.func @ragged_variant(%q: tensor<300x8x64xbf16>, %lse: tensor<8x300xf32>, %c: tensor<4xi32>) {
  // expected-error @+1 {{backward variant sm90 needs dense batches}}
  %g:3 = attn.flash_bwd %q, %q, %q, %q, %q, %lse cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>)
      {scale = 0.125 : f32, config = #attn.backward_config<variant = "sm90", block_m = 64, block_n = 128, num_warps = 8, stages = 2>}
      : tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<8x300xf32>
      -> tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>
  return
}
