// REQUIRES: gpu
// Batch-invariant ragged prefill and paged decode: the same bits with any
// split count (each launch is run again with 3 more splits).
// RUN: attn-run --check --batch-invariant %s | FileCheck %s
// RUN: attn-run --check --batch-invariant --variant=sm80 --splits=4 %s | FileCheck %s
// CHECK: batch-invariant: PASS
// CHECK: check output 0 {{.*}} PASS
func.func @ragged(%q: tensor<3000x8x64xbf16>, %k: tensor<9000x2x64xbf16>, %v: tensor<9000x2x64xbf16>,
                  %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> tensor<3000x8x64xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<5xi32>) cu_seqlens_k(%ck : tensor<5xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<3000x8x64xbf16>, tensor<9000x2x64xbf16>, tensor<9000x2x64xbf16> -> tensor<3000x8x64xbf16>
  return %o : tensor<3000x8x64xbf16>
}
