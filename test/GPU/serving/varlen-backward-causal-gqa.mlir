// REQUIRES: gpu
// The backward of a ragged batch (packed-sequence training): 7 sequences
// of random lengths (some empty) packed in 900 queries and 1300 keys, GQA
// 8/2, causal aligned to each sequence's bottom-right (a sequence with more
// queries than keys has rows that see no key: their dq is 0). dq, dk and
// dv of every sequence against float64, in the default and the
// deterministic mode, other seeds, and with NaN in the rows no sequence
// covers (keys 1000-1299, queries 900-; their gradients are not written).
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --deterministic --check %s | FileCheck %s
// RUN: attn-run --backward --check --seed=2 %s | FileCheck %s
// RUN: attn-run --backward --check --seed=3 %s | FileCheck %s
// RUN: attn-run --backward --check --poison-padding --set-input=3:0,100,250,300,300,500,700,800 --set-input=4:0,100,250,400,400,700,900,1000 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @varlen(%q: tensor<900x8x64xbf16>, %k: tensor<1300x2x64xbf16>, %v: tensor<1300x2x64xbf16>,
                  %cq: tensor<8xi32>, %ck: tensor<8xi32>) -> tensor<900x8x64xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<8xi32>) cu_seqlens_k(%ck : tensor<8xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
      : tensor<900x8x64xbf16>, tensor<1300x2x64xbf16>, tensor<1300x2x64xbf16> -> tensor<900x8x64xbf16>
  return %o : tensor<900x8x64xbf16>
}
