// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @only_q_offsets(%q: tensor<10x2x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x2x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_q' and 'cu_seqlens_k' go together: a ragged batch needs the offsets of its queries and of its keys}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x2x64xbf16>, tensor<10x2x64xbf16>, tensor<10x2x64xbf16> -> tensor<10x2x64xbf16>
  return %o : tensor<10x2x64xbf16>
}

// -----

func.func @dense_rank(%q: tensor<1x2x10x64xbf16>, %cq: tensor<3xi32>) -> tensor<1x2x10x64xbf16> {
  // expected-error @+1 {{'q' must be rank 3 [tokens, heads, head_dim] with cu_seqlens, got shape 1x2x10x64}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<1x2x10x64xbf16>, tensor<1x2x10x64xbf16>, tensor<1x2x10x64xbf16> -> tensor<1x2x10x64xbf16>
  return %o : tensor<1x2x10x64xbf16>
}

// -----

func.func @offsets_rank(%q: tensor<10x2x64xbf16>, %cq: tensor<1x3xi32>) -> tensor<10x2x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_q' must be a rank-1 tensor of batch + 1 offsets, got shape 1x3}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<1x3xi32>) cu_seqlens_k(%cq : tensor<1x3xi32>) {scale = 1.0 : f32}
    : tensor<10x2x64xbf16>, tensor<10x2x64xbf16>, tensor<10x2x64xbf16> -> tensor<10x2x64xbf16>
  return %o : tensor<10x2x64xbf16>
}

// -----

func.func @no_sequence(%q: tensor<10x2x64xbf16>, %cq: tensor<1xi32>) -> tensor<10x2x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_q' has 1 entry; a batch of at least one sequence needs 2 (batch + 1 offsets)}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<1xi32>) cu_seqlens_k(%cq : tensor<1xi32>) {scale = 1.0 : f32}
    : tensor<10x2x64xbf16>, tensor<10x2x64xbf16>, tensor<10x2x64xbf16> -> tensor<10x2x64xbf16>
  return %o : tensor<10x2x64xbf16>
}

// -----

func.func @batches_differ(%q: tensor<10x2x64xbf16>, %cq: tensor<3xi32>, %ck: tensor<4xi32>) -> tensor<10x2x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_q' has 3 entries but 'cu_seqlens_k' has 4; both hold batch + 1 offsets of one batch}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%ck : tensor<4xi32>) {scale = 1.0 : f32}
    : tensor<10x2x64xbf16>, tensor<10x2x64xbf16>, tensor<10x2x64xbf16> -> tensor<10x2x64xbf16>
  return %o : tensor<10x2x64xbf16>
}

// -----

func.func @transposed_k(%q: tensor<10x2x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x2x64xbf16> {
  // expected-error @+1 {{transpose_k is not supported with cu_seqlens (packed k is [tokens, heads, head_dim])}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32, transpose_k}
    : tensor<10x2x64xbf16>, tensor<10x2x64xbf16>, tensor<10x2x64xbf16> -> tensor<10x2x64xbf16>
  return %o : tensor<10x2x64xbf16>
}

// -----

func.func @heads_kv_v(%q: tensor<10x4x64xbf16>, %k: tensor<12x2x64xbf16>, %v: tensor<12x1x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{heads (dimension 1) mismatch: 'k' has 2 but 'v' has 1}}
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<12x2x64xbf16>, tensor<12x1x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

func.func @key_tokens(%q: tensor<10x4x64xbf16>, %k: tensor<12x2x64xbf16>, %v: tensor<11x2x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{key sequence mismatch: 'k' dimension 0 has 12 but 'v' dimension 0 has 11}}
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<12x2x64xbf16>, tensor<11x2x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

func.func @head_dim(%q: tensor<10x4x64xbf16>, %k: tensor<12x2x32xbf16>, %cq: tensor<3xi32>) -> tensor<10x4x32xbf16> {
  // expected-error @+1 {{head dim mismatch: 'q' dimension 2 has 64 but 'k' dimension 2 has 32}}
  %o = attn.flash %q, %k, %k cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<12x2x32xbf16>, tensor<12x2x32xbf16> -> tensor<10x4x32xbf16>
  return %o : tensor<10x4x32xbf16>
}

// -----

func.func @output_shape(%q: tensor<10x4x64xbf16>, %k: tensor<12x2x64xbf16>, %cq: tensor<3xi32>) -> tensor<12x4x64xbf16> {
  // expected-error @+1 {{output shape 12x4x64 does not match the expected 10x4x64 at dimension 0}}
  %o = attn.flash %q, %k, %k cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<12x2x64xbf16>, tensor<12x2x64xbf16> -> tensor<12x4x64xbf16>
  return %o : tensor<12x4x64xbf16>
}

// -----

func.func @lse_shape(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>) -> (tensor<10x4x64xbf16>, tensor<10x4xf32>) {
  // expected-error @+1 {{'lse' result must have shape 4x10, got 10x4}}
  %o, %l = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>, tensor<10x4xf32>
  return %o, %l : tensor<10x4x64xbf16>, tensor<10x4xf32>
}

// -----

func.func @key_padding(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>, %len: tensor<2xi32>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{mask item 'key_padding' is not supported with cu_seqlens (its operand is laid out for a dense batch; a score_mod with captures can index by sequence and position)}}
  %o = attn.flash %q, %q, %q lengths(%len : tensor<2xi32>) cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

func.func @keep(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>, %keep: tensor<1x1x10x10xi1>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{mask item 'keep' is not supported with cu_seqlens}}
  %o = attn.flash %q, %q, %q keep(%keep : tensor<1x1x10x10xi1>) cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<keep>}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

func.func @bias(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>, %bias: tensor<1x4x1x1xf32>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{mask item 'bias' is not supported with cu_seqlens}}
  %o = attn.flash %q, %q, %q bias(%bias : tensor<1x4x1x1xf32>) cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<bias>}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

func.func @lengths_without_item(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>, %len: tensor<2xi32>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{has a 'lengths' operand but the mask has no 'key_padding' item}}
  %o = attn.flash %q, %q, %q lengths(%len : tensor<2xi32>) cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

// The TMA variant reads whole sequences of a dense batch.
func.func @tma_variant(%q: tensor<10x4x64xbf16>, %cq: tensor<3xi32>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{variant sm90ws needs a dense batch (ragged sequences at cu_seqlens offsets would need TMA boxes cut at each sequence's bounds)}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>)
      {scale = 1.0 : f32, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

func.func @token_extent(%q: tensor<0x4x64xbf16>, %cq: tensor<3xi32>) -> tensor<0x4x64xbf16> {
  // expected-error @+1 {{'q' dimension 0 (tokens) is 0; extents must be between 1 and 2147483647}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<0x4x64xbf16>, tensor<0x4x64xbf16>, tensor<0x4x64xbf16> -> tensor<0x4x64xbf16>
  return %o : tensor<0x4x64xbf16>
}
