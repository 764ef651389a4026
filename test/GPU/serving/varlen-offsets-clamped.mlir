// REQUIRES: gpu
// Offsets past either end of the packed tensors are clamped to them, in the
// kernel and in the reference: sequences of 0 queries, of 0 keys (their
// rows are zeros with a -inf logsumexp), a negative first offset and a last
// one past the tokens. (Offsets out of order are compute-sanitizer's case
// in scripts/device-run.sh: no reads or writes outside the tensors.)
// RUN: attn-run --check --set-input=3:-20,0,150,150,9999 --set-input=4:-1,200,200,450,2000 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=3 --set-input=3:-20,0,150,150,9999 --set-input=4:-1,200,200,450,2000 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --splits=2 --set-input=3:0,100,100,300,300 --set-input=4:0,0,250,500,500 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @clamped(%q: tensor<300x4x64xbf16>, %k: tensor<500x2x64xbf16>, %v: tensor<500x2x64xbf16>,
                   %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> (tensor<300x4x64xbf16>, tensor<4x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<5xi32>) cu_seqlens_k(%ck : tensor<5xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<300x4x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16> -> tensor<300x4x64xbf16>, tensor<4x300xf32>
  return %o, %lse : tensor<300x4x64xbf16>, tensor<4x300xf32>
}
