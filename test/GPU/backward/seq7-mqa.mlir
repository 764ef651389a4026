// REQUIRES: gpu
// seven queries and keys, MQA
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @seq7_mqa(%q: tensor<2x4x7x64xbf16>, %k: tensor<2x1x7x64xbf16>, %v: tensor<2x1x7x64xbf16>) -> tensor<2x4x7x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<2x4x7x64xbf16>, tensor<2x1x7x64xbf16>, tensor<2x1x7x64xbf16> -> tensor<2x4x7x64xbf16>
  return %o : tensor<2x4x7x64xbf16>
}
