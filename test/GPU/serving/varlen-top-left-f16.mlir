// REQUIRES: gpu
// A ragged batch in f16 with causal masks aligned to each sequence's first
// query and key (top-left), head dim 128, MQA (4 query heads, 1 K/V head).
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --splits=4 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @varlen(%q: tensor<700x4x128xf16>, %k: tensor<700x1x128xf16>, %v: tensor<700x1x128xf16>,
                  %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<700x4x128xf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<4xi32>) cu_seqlens_k(%ck : tensor<4xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal>}
    : tensor<700x4x128xf16>, tensor<700x1x128xf16>, tensor<700x1x128xf16> -> tensor<700x4x128xf16>
  return %o : tensor<700x4x128xf16>
}
