// REQUIRES: gpu
// A score_mod with ops that MLIR's canonicalizer folds otherwise than attn
// defines them (issue 39; reduced from gen-graphs.py --seed 77001, case 11,
// and --seed 1205001, case 36): math.atan2(0, 0) is 0, not NaN (here of
// zeros that fold from integer ops), and an index_castui (index_cast)
// through i1 and back is bit 0 of its operand (zero- or sign-extended), not
// the operand. The pipeline leaves score_mod bodies as written, so the
// kernel and the reference compute what the graph says. (It spills on none
// of test/Target/Cuda/ptxas-score-mod.test's configurations.)
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --unfused %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @folds(%q: tensor<2x2x70x64xf16>, %k: tensor<2x2x100x64xf16>, %v: tensor<2x2x100x64xf16>) -> tensor<2x2x70x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x70x64xf16>, tensor<2x2x100x64xf16> -> tensor<2x2x70x100xf32>
  %d = arith.constant dense<8.0> : tensor<2x2x70x100xf32>
  %t = arith.divf %s, %d : tensor<2x2x70x100xf32>
  %m = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    // atan2 of zeros that fold: 170 * 0 (low half) % 17, as f32.
    %c170 = arith.constant 170 : index
    %c0 = arith.constant 0 : index
    %lo, %hi = arith.mulsi_extended %c170, %c0 : index
    %c17 = arith.constant 17 : index
    %r = arith.remui %lo, %c17 : index
    %ri = arith.index_castui %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %a0 = math.atan2 %rf, %rf : f32
    // kv_idx & 1 and -(q_idx & 1) through i1.
    %kbit = arith.index_castui %j : index to i1
    %kback = arith.index_castui %kbit : i1 to index
    %qbit = arith.index_cast %i : index to i1
    %qback = arith.index_cast %qbit : i1 to index
    %sum = arith.addi %kback, %qback : index
    %sumi = arith.index_cast %sum : index to i64
    %sumf = arith.sitofp %sumi : i64 to f32
    %half = arith.constant 0.5 : f32
    %bits = arith.mulf %sumf, %half : f32
    %y0 = arith.addf %x, %a0 : f32
    %y = arith.addf %y0, %bits : f32
    attn.yield %y : f32
  } : tensor<2x2x70x100xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x70x100xf32> -> tensor<2x2x70x100xf16>
  %o = attn.matmul %p, %v : tensor<2x2x70x100xf16>, tensor<2x2x100x64xf16> -> tensor<2x2x70x64xf16>
  return %o : tensor<2x2x70x64xf16>
}
