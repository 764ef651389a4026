// REQUIRES: gpu
// gpt-oss's sinks, learned: their gradient (the _sinks kernel's per-head sum
// over D and the logsumexp) beside dq, dk, dv; GQA, causal, odd lengths, and
// the deterministic mode (no atomics anywhere) on every backward variant.
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --deterministic --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --deterministic --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @sinks_gqa_causal(%q: tensor<2x8x333x64xbf16>, %k: tensor<2x2x333x64xbf16>, %v: tensor<2x2x333x64xbf16>, %sinks: tensor<8xf32>) -> tensor<2x8x333x64xbf16> {
  %o = attn.flash %q, %k, %v sinks(%sinks : tensor<8xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<2x8x333x64xbf16>, tensor<2x2x333x64xbf16>, tensor<2x2x333x64xbf16> -> tensor<2x8x333x64xbf16>
  return %o : tensor<2x8x333x64xbf16>
}
