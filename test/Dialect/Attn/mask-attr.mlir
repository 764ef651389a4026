// RUN: attn-opt %s | attn-opt | FileCheck %s

// Items print in one canonical order whatever order they are written in.
// CHECK: m0 = #attn.mask<>
// CHECK-SAME: m1 = #attn.mask<causal, window = [128, 0], bottom_right, key_padding, keep, bias>
// CHECK-SAME: m2 = #attn.mask<window = [0, 7]>
// CHECK-SAME: m3 = #attn.mask<causal, bottom_right = tensor, key_padding>
func.func private @f() attributes {
  m0 = #attn.mask<>,
  m1 = #attn.mask<bias, keep, key_padding, bottom_right, window = [128, 0], causal>,
  m2 = #attn.mask<window = [0, 7]>,
  m3 = #attn.mask<key_padding, bottom_right = tensor, causal>
}
