// REQUIRES: gpu
// The backward of a ragged batch at head dim 256, MQA 4/1, causal aligned
// to the top-left (queries past a sequence's keys see them all); one
// query per sequence in the second case (decode-shaped, 64 sequences).
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --set-input=3:0,3,3,40,41,300 --set-input=4:0,0,50,51,190,300 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @varlen(%q: tensor<300x4x256xbf16>, %k: tensor<300x1x256xbf16>, %v: tensor<300x1x256xbf16>,
                  %cq: tensor<6xi32>, %ck: tensor<6xi32>) -> tensor<300x4x256xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<6xi32>) cu_seqlens_k(%ck : tensor<6xi32>)
      {scale = 0.0625 : f32, mask = #attn.mask<causal>}
      : tensor<300x4x256xbf16>, tensor<300x1x256xbf16>, tensor<300x1x256xbf16> -> tensor<300x4x256xbf16>
  return %o : tensor<300x4x256xbf16>
}
