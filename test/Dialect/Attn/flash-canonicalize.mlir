// RUN: attn-opt %s -canonicalize -split-input-file | FileCheck %s

// One query aligned to the bottom-right sees every key a causal mask
// keeps: canonicalization drops the mask (so one-token decode can pack the
// query heads of a K/V head), keeping bottom_right for a window.

// CHECK-LABEL: func @decode
// CHECK: attn.flash {{.*}}mask = #attn.mask<key_padding>
func.func @decode(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x100x64xbf16>, %len: tensor<2xi32>) -> tensor<2x8x1x64xbf16> {
  %o = attn.flash %q, %k, %k lengths(%len : tensor<2xi32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x8x1x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// CHECK-LABEL: func @decode_no_other_mask
// CHECK: attn.flash
// CHECK-NOT: mask =
// CHECK-SAME: scale = 1.250000e-01 : f32}
func.func @decode_no_other_mask(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x100x64xbf16>) -> tensor<2x8x1x64xbf16> {
  %o = attn.flash %q, %k, %k {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x8x1x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// CHECK-LABEL: func @decode_window
// CHECK: mask = #attn.mask<window = [31, 0], bottom_right>
func.func @decode_window(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x100x64xbf16>) -> tensor<2x8x1x64xbf16> {
  %o = attn.flash %q, %k, %k {scale = 0.125 : f32, mask = #attn.mask<causal, window = [31, 0], bottom_right>}
    : tensor<2x8x1x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// Top-left, one query sees key 0 only; two queries need the mask.
// CHECK-LABEL: func @kept
// CHECK: mask = #attn.mask<causal>
// CHECK: mask = #attn.mask<causal, bottom_right>
func.func @kept(%q: tensor<2x8x1x64xbf16>, %q2: tensor<2x8x2x64xbf16>, %k: tensor<2x2x100x64xbf16>) -> (tensor<2x8x1x64xbf16>, tensor<2x8x2x64xbf16>) {
  %o = attn.flash %q, %k, %k {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<2x8x1x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x1x64xbf16>
  %o2 = attn.flash %q2, %k, %k {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x8x2x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16> -> tensor<2x8x2x64xbf16>
  return %o, %o2 : tensor<2x8x1x64xbf16>, tensor<2x8x2x64xbf16>
}

// -----

// A ragged batch's sequences have any number of queries.
// CHECK-LABEL: func @ragged
// CHECK: mask = #attn.mask<causal, bottom_right>
func.func @ragged(%q: tensor<1x8x64xbf16>, %cq: tensor<2xi32>) -> tensor<1x8x64xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<2xi32>) cu_seqlens_k(%cq : tensor<2xi32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<1x8x64xbf16>, tensor<1x8x64xbf16>, tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return %o : tensor<1x8x64xbf16>
}
