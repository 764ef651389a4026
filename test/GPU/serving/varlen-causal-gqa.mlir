// REQUIRES: gpu
// A ragged batch of 7 sequences (random lengths, some empty, packed 900
// queries and 1300 keys), GQA 8/2, causal aligned to each sequence's own
// bottom-right (a sequence with more queries than keys has rows that see
// no key: zeros and -inf), with its logsumexp [Hq, Tq]. Every variant that
// takes it, split-KV forced and chosen, and other seeds.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=64 --block-n=32 --num-warps=4 --stages=1 %s | FileCheck %s
// RUN: attn-run --check --splits=5 %s | FileCheck %s
// RUN: attn-run --check --splits=3 --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --seed=2 %s | FileCheck %s
// RUN: attn-run --check --seed=3 --splits=1 %s | FileCheck %s
// With NaN in the keys no sequence reads (an uninitialized cache): keys
// 1000-1299 past the last sequence.
// RUN: attn-run --check --poison-padding --set-input=3:0,100,250,300,300,500,700,900 --set-input=4:0,100,250,400,400,700,900,1000 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm80 --splits=3 --set-input=3:0,100,250,300,300,500,700,900 --set-input=4:0,100,250,400,400,700,900,1000 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @varlen(%q: tensor<900x8x64xbf16>, %k: tensor<1300x2x64xbf16>, %v: tensor<1300x2x64xbf16>,
                  %cq: tensor<8xi32>, %ck: tensor<8xi32>) -> (tensor<900x8x64xbf16>, tensor<8x900xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<8xi32>) cu_seqlens_k(%ck : tensor<8xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<900x8x64xbf16>, tensor<1300x2x64xbf16>, tensor<1300x2x64xbf16> -> tensor<900x8x64xbf16>, tensor<8x900xf32>
  return %o, %lse : tensor<900x8x64xbf16>, tensor<8x900xf32>
}
