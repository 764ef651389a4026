// REQUIRES: gpu
// Attention sinks (one logit per query head in each row's denominator),
// GQA 8/2, causal aligned to the bottom-right with more queries than keys:
// the first rows see no key and yield zeros with the sink as their
// logsumexp. Every variant (the TMA one through the shared epilogue), and
// split-KV, where the merge adds the sink once.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --splits=5 %s | FileCheck %s
// RUN: attn-run --check --splits=3 --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --splits=4 --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=2 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @sinks(%q: tensor<2x8x600x64xbf16>, %k: tensor<2x2x500x64xbf16>, %v: tensor<2x2x500x64xbf16>, %s: tensor<8xf32>)
    -> (tensor<2x8x600x64xbf16>, tensor<2x8x600xf32>) {
  %o, %lse = attn.flash %q, %k, %v sinks(%s : tensor<8xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x8x600x64xbf16>, tensor<2x2x500x64xbf16>, tensor<2x2x500x64xbf16> -> tensor<2x8x600x64xbf16>, tensor<2x8x600xf32>
  return %o, %lse : tensor<2x8x600x64xbf16>, tensor<2x8x600xf32>
}
