// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @rank(%q: tensor<8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{'q' must be rank 4 [batch, heads, seq, head_dim], got shape 8x64}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @element_types(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{q, k and v must share an element type, got 'bf16', 'f16', 'bf16'}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @output_element(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xf16> {
  // expected-error @+1 {{output element type 'f16' differs from q's 'bf16'}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xf16>
  return %o : tensor<1x1x8x64xf16>
}

// -----

func.func @f32_inputs(%q: tensor<1x1x8x64xf32>, %k: tensor<1x1x8x64xf32>, %v: tensor<1x1x8x64xf32>) -> tensor<1x1x8x64xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type values}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32> -> tensor<1x1x8x64xf32>
  return %o : tensor<1x1x8x64xf32>
}

// -----

func.func @batch_qk(%q: tensor<2x1x8x64xbf16>, %k: tensor<3x1x8x64xbf16>, %v: tensor<3x1x8x64xbf16>) -> tensor<2x1x8x64xbf16> {
  // expected-error @+1 {{batch (dimension 0) mismatch: 'q' has 2 but 'k' has 3}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<2x1x8x64xbf16>, tensor<3x1x8x64xbf16>, tensor<3x1x8x64xbf16> -> tensor<2x1x8x64xbf16>
  return %o : tensor<2x1x8x64xbf16>
}

// -----

func.func @batch_kv(%q: tensor<2x1x8x64xbf16>, %k: tensor<2x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<2x1x8x64xbf16> {
  // expected-error @+1 {{batch (dimension 0) mismatch: 'k' has 2 but 'v' has 1}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<2x1x8x64xbf16>, tensor<2x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<2x1x8x64xbf16>
  return %o : tensor<2x1x8x64xbf16>
}

// -----

func.func @heads_kv(%q: tensor<1x4x8x64xbf16>, %k: tensor<1x2x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x4x8x64xbf16> {
  // expected-error @+1 {{heads (dimension 1) mismatch: 'k' has 2 but 'v' has 1}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x4x8x64xbf16>, tensor<1x2x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x4x8x64xbf16>
  return %o : tensor<1x4x8x64xbf16>
}

// -----

func.func @key_sequence(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x16x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{key sequence mismatch: 'k' dimension 2 has 16 but 'v' dimension 2 has 8}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @head_dim(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x32xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{head dim mismatch: 'q' dimension 3 has 64 but 'k' dimension 3 has 32}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @transposed_k_head_dim(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{head dim mismatch: 'q' dimension 3 has 64 but 'k' dimension 2 has 8}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, transpose_k} : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @dynamic_heads(%q: tensor<1x?x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x?x8x64xbf16> {
  // expected-error @+1 {{heads (dimension 1) of q and k must be static}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x?x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x?x8x64xbf16>
  return %o : tensor<1x?x8x64xbf16>
}

// -----

func.func @gqa_ratio(%q: tensor<1x6x8x64xbf16>, %k: tensor<1x4x8x64xbf16>, %v: tensor<1x4x8x64xbf16>) -> tensor<1x6x8x64xbf16> {
  // expected-error @+1 {{kv heads 4 must divide q heads 6 (GQA/MQA)}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x6x8x64xbf16>, tensor<1x4x8x64xbf16>, tensor<1x4x8x64xbf16> -> tensor<1x6x8x64xbf16>
  return %o : tensor<1x6x8x64xbf16>
}

// -----

func.func @dynamic_head_dim(%q: tensor<1x1x8x?xbf16>, %k: tensor<1x1x8x?xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{head dim (dimension 3) of 'q' must be static}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x8x?xbf16>, tensor<1x1x8x?xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @output_shape(%q: tensor<1x2x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x32xbf16>) -> tensor<1x2x8x64xbf16> {
  // expected-error @+1 {{output shape 1x2x8x64 does not match the expected 1x2x8x32 at dimension 3}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x2x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x32xbf16> -> tensor<1x2x8x64xbf16>
  return %o : tensor<1x2x8x64xbf16>
}

// -----

func.func @lse_shape(%q: tensor<1x2x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x2x8xf32> {
  // expected-error @+1 {{'lse' result must have shape 1x2x8, got 1x1x8}}
  %o, %l = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x2x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x2x8x64xbf16>, tensor<1x1x8xf32>
  return %l : tensor<1x1x8xf32>
}

// -----

func.func @scale(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{scale must be finite, got INF}}
  %o = attn.flash %q, %k, %v {scale = 0x7F800000 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @mask_operand(%q: tensor<2x1x8x64xbf16>, %k: tensor<2x1x8x64xbf16>, %v: tensor<2x1x8x64xbf16>) -> tensor<2x1x8x64xbf16> {
  // expected-error @+1 {{mask item 'key_padding' needs a 'lengths' operand}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, mask = #attn.mask<key_padding>} : tensor<2x1x8x64xbf16>, tensor<2x1x8x64xbf16>, tensor<2x1x8x64xbf16> -> tensor<2x1x8x64xbf16>
  return %o : tensor<2x1x8x64xbf16>
}

// -----

func.func @keep_broadcast(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x1x16x64xbf16>, %v: tensor<2x1x16x64xbf16>, %m: tensor<2x4x8x8xi1>) -> tensor<2x4x8x64xbf16> {
  // expected-error @+1 {{'keep' operand dimension 3 is 8, expected 1 or 16 to broadcast to 2x4x8x16}}
  %o = attn.flash %q, %k, %v keep(%m : tensor<2x4x8x8xi1>) {scale = 1.0 : f32, mask = #attn.mask<keep>} : tensor<2x4x8x64xbf16>, tensor<2x1x16x64xbf16>, tensor<2x1x16x64xbf16> -> tensor<2x4x8x64xbf16>
  return %o : tensor<2x4x8x64xbf16>
}

// -----

func.func @score_mod_signature(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{score_mod argument 0 (the score) must be 'f32', got 'bf16'}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} score_mod {
  ^bb0(%x: bf16, %b: index, %h: index, %i: index, %j: index):
    %y = arith.extf %x : bf16 to f32
    attn.yield %y : f32
  } : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @sm90_head_dim(%q: tensor<1x1x8x96xbf16>, %k: tensor<1x1x8x96xbf16>, %v: tensor<1x1x8x96xbf16>) -> tensor<1x1x8x96xbf16> {
  // expected-error @+1 {{variant sm90 needs head dims that are multiples of 64 up to 256, got 96/96}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, config = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>} : tensor<1x1x8x96xbf16>, tensor<1x1x8x96xbf16>, tensor<1x1x8x96xbf16> -> tensor<1x1x8x96xbf16>
  return %o : tensor<1x1x8x96xbf16>
}

// -----

func.func @sm90_transposed_k(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x64x8xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{variant sm90 needs an untransposed k (K^T tiles would need MN-major wgmma operands)}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, transpose_k, config = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>} : tensor<1x1x8x64xbf16>, tensor<1x1x64x8xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @sm90ws_transposed_k(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x64x8xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{variant sm90ws needs an untransposed k (K^T tiles would need MN-major wgmma operands)}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, transpose_k, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>} : tensor<1x1x8x64xbf16>, tensor<1x1x64x8xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @captures_without_score_mod(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>, %t: tensor<4xf32>) -> tensor<1x1x8x64xbf16> {
  // expected-error @+1 {{has score_mod captures but no score_mod region}}
  %o = attn.flash %q, %k, %v captures(%t : tensor<4xf32>) {scale = 1.0 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

func.func @flash_unsupported_op(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @+1 {{'arith.extf' op computes on 'f64'; a score_mod computes on i1, i32, i64, index and f32}}
    %d = arith.extf %x : f32 to f64
    %y = arith.truncf %d : f64 to f32
    attn.yield %y : f32
  } : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}
