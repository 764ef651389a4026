// REQUIRES: gpu
// One-token decode with sinks, GQA 32/8: the query heads of a K/V head are
// packed into one block's rows, and each row finds its head's sink; split
// (the merge adds the sink) and not, in each variant and in BSHD memory.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --splits=1 %s | FileCheck %s --check-prefix=PACKED
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=6 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --layout=bshd %s | FileCheck %s
// PACKED: check output 0 {{.*}} PASS
// PACKED: check output 1 {{.*}} PASS
// PACKED: {{.*}}1 split per query block, query heads packed
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @decode(%q: tensor<4x32x1x128xbf16>, %k: tensor<4x8x3000x128xbf16>, %v: tensor<4x8x3000x128xbf16>, %s: tensor<32xf32>)
    -> (tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>) {
  %o, %lse = attn.flash %q, %k, %v sinks(%s : tensor<32xf32>) {scale = 0.0883883476 : f32}
    : tensor<4x32x1x128xbf16>, tensor<4x8x3000x128xbf16>, tensor<4x8x3000x128xbf16> -> tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
  return %o, %lse : tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
}
