// REQUIRES: gpu
// The plain chain, one kernel per op: Q K^T (f32 scores), scale, softmax to
// bf16, P V; also with q/k/v in BSHD memory (strided, no copies).
// RUN: attn-run --unfused --check --bench --iters=3 --warmup=1 %s | FileCheck %s
// RUN: attn-run --unfused --check --layout=bshd %s | FileCheck %s --check-prefix=BSHD
// CHECK: check output 0 {{.*}} PASS
// CHECK: attn_matmul_bf16_f32_2x4x256x256_k64_tr
// CHECK: total: 4 kernel(s), {{[0-9.]+}} MB of operands and results
// BSHD: check output 0 {{.*}} PASS
func.func @sdpa(%q: tensor<2x4x256x64xbf16>, %k: tensor<2x4x256x64xbf16>, %v: tensor<2x4x256x64xbf16>) -> tensor<2x4x256x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16> -> tensor<2x4x256x256xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x256x256xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x256x256xf32> -> tensor<2x4x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x256x256xbf16>, tensor<2x4x256x64xbf16> -> tensor<2x4x256x64xbf16>
  return %o : tensor<2x4x256x64xbf16>
}
