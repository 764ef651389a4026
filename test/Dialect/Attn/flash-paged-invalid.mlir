// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @no_lengths(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %t: tensor<2x4xi32>) -> tensor<2x4x1x64xbf16> {
  // expected-error @+1 {{'block_table' needs the mask item key_padding with 'lengths' (each sequence's keys in the cache, flash_attn's cache_seqlens)}}
  %o = attn.flash %q, %kc, %kc block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}

// -----

func.func @table_rank(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %len: tensor<2xi32>, %t: tensor<8xi32>) -> tensor<2x4x1x64xbf16> {
  // expected-error @+1 {{'block_table' must be [batch, pages per sequence], got shape 8}}
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<2xi32>) block_table(%t : tensor<8xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}

// -----

func.func @table_batch(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %len: tensor<2xi32>, %t: tensor<3x4xi32>) -> tensor<2x4x1x64xbf16> {
  // expected-error @+1 {{batch mismatch: 'block_table' has 3 but 'q' has 2}}
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<2xi32>) block_table(%t : tensor<3x4xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}

// -----

func.func @page_sizes(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %vc: tensor<10x4x8x64xbf16>, %len: tensor<2xi32>, %t: tensor<2x4xi32>) -> tensor<2x4x1x64xbf16> {
  // expected-error @+1 {{page size mismatch: 'k' dimension 2 has 16 but 'v' dimension 2 has 8}}
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x8x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}

// -----

func.func @transposed(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x64x16xbf16>, %vc: tensor<10x4x16x64xbf16>, %len: tensor<2xi32>, %t: tensor<2x4xi32>) -> tensor<2x4x1x64xbf16> {
  // expected-error @+1 {{transpose_k is not supported with 'block_table' (pages hold rows of keys)}}
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<2xi32>) block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32, transpose_k, mask = #attn.mask<key_padding>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x64x16xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}

// -----

func.func @ragged(%q: tensor<10x4x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %cq: tensor<3xi32>, %t: tensor<2x4xi32>) -> tensor<10x4x64xbf16> {
  // expected-error @+1 {{'block_table' is not supported with cu_seqlens (a ragged batch's keys are packed, not paged)}}
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32}
    : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return %o : tensor<10x4x64xbf16>
}

// -----

// A bias broadcasts over the logical keys (4 pages of 16 per sequence).
func.func @bias_keys(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x16x64xbf16>, %len: tensor<2xi32>, %t: tensor<2x4xi32>, %b: tensor<1x1x1x16xf32>) -> tensor<2x4x1x64xbf16> {
  // expected-error @+1 {{'bias' operand dimension 3 is 16, expected 1 or 64 to broadcast to 2x4x1x64}}
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<2xi32>) bias(%b : tensor<1x1x1x16xf32>) block_table(%t : tensor<2x4xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding, bias>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x16x64xbf16>, tensor<10x4x16x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}

// -----

// The TMA kernel reads a page per box: pages of a power of two keys from 8.
func.func @tma_variant_page4(%q: tensor<2x4x1x64xbf16>, %kc: tensor<10x4x4x64xbf16>, %len: tensor<2xi32>, %t: tensor<2x16xi32>) -> tensor<2x4x1x64xbf16> {
  // expected-error @+1 {{variant sm90ws needs pages of a power of two keys from 8 (a TMA box per page), got 4}}
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<2xi32>) block_table(%t : tensor<2x16xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<key_padding>, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>}
    : tensor<2x4x1x64xbf16>, tensor<10x4x4x64xbf16>, tensor<10x4x4x64xbf16> -> tensor<2x4x1x64xbf16>
  return %o : tensor<2x4x1x64xbf16>
}
