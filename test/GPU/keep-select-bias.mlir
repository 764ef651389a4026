// REQUIRES: gpu
// masked_fill(~keep, -inf) as arith.select, then a bias added as arith.addf,
// with K transposed: the addf's scores operand is the select, whose first
// operand is the keep mask (issue 39: gen-graphs.py --seed 1205001, case 16,
// was left unfused).
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --splits=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @keep_select_bias(%q: tensor<1x1x5x64xf16>, %k: tensor<1x1x64x8xf16>, %v: tensor<1x1x8x64xf16>, %keep: tensor<1x1x5x8xi1>, %bias: tensor<1x1x5x8xf32>) -> tensor<1x1x5x64xf16> {
  %s = attn.matmul %q, %k : tensor<1x1x5x64xf16>, tensor<1x1x64x8xf16> -> tensor<1x1x5x8xf32>
  %d = arith.constant dense<10.666666666666666> : tensor<1x1x5x8xf32>
  %t = arith.divf %s, %d : tensor<1x1x5x8xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x1x5x8xf32>
  %m = arith.select %keep, %t, %ninf : tensor<1x1x5x8xi1>, tensor<1x1x5x8xf32>
  %b = arith.addf %m, %bias : tensor<1x1x5x8xf32>
  %p = attn.softmax %b {dim = 3} : tensor<1x1x5x8xf32> -> tensor<1x1x5x8xf16>
  %o = attn.matmul %p, %v : tensor<1x1x5x8xf16>, tensor<1x1x8x64xf16> -> tensor<1x1x5x64xf16>
  return %o : tensor<1x1x5x64xf16>
}
