// REQUIRES: gpu
// per-batch key lengths
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// With NaN in the keys no sequence reads (an uninitialized cache):
// RUN: attn-run --check --poison-padding --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --poison-padding %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --block-m=192 --block-n=128 --num-warps=16 --stages=2 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @key_padding(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x1000x64xbf16>, %v: tensor<2x4x1000x64xbf16>, %len: tensor<2xi32>) -> tensor<2x4x300x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x300x64xbf16>, tensor<2x4x1000x64xbf16> -> tensor<2x4x300x1000xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x300x1000xf32>
  %k2 = attn.mask %t lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x4x300x1000xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x300x1000xf32> -> tensor<2x4x300x1000xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x300x1000xbf16>, tensor<2x4x1000x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
