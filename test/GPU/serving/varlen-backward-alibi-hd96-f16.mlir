// REQUIRES: gpu
// The backward of a ragged batch in f16 with head dim 96 and an ALiBi
// score_mod of the positions within each sequence, GQA 6/3, no mask.
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --seed=4 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @varlen(%q: tensor<500x6x96xf16>, %k: tensor<800x3x96xf16>, %v: tensor<800x3x96xf16>,
                  %cq: tensor<10xi32>, %ck: tensor<10xi32>) -> tensor<500x6x96xf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<10xi32>) cu_seqlens_k(%ck : tensor<10xi32>)
      {scale = 0.102062076 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %one = arith.constant 1 : index
    %h1 = arith.addi %h, %one : index
    %hi = arith.index_cast %h1 : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %r = arith.constant -1.0 : f32
    %e = arith.mulf %hf, %r : f32
    %slope = math.exp2 %e : f32
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %b2 = arith.mulf %slope, %df : f32
    %y = arith.addf %x, %b2 : f32
    attn.yield %y : f32
  } : tensor<500x6x96xf16>, tensor<800x3x96xf16>, tensor<800x3x96xf16> -> tensor<500x6x96xf16>
  return %o : tensor<500x6x96xf16>
}
