// REQUIRES: gpu
// Multi-token decode against a padded cache (flash_attn's cache_seqlens):
// 4 new queries per sequence, key padding and causal aligned to each
// sequence's own length, so query i of a sequence of L keys sees keys up to
// L - 4 + i; GQA 16/4, split and not, fused and unfused (the graph op's
// mask has the same rule), also in BSHD memory.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=6 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --layout=bshd %s | FileCheck %s
// RUN: attn-run --check --unfused %s | FileCheck %s
// With NaN in the keys no sequence reads (an uninitialized cache):
// RUN: attn-run --check --poison-padding --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm80 --splits=6 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --layout=bshd %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @decode4(%q: tensor<8x16x4x128xbf16>, %k: tensor<8x4x1500x128xbf16>, %v: tensor<8x4x1500x128xbf16>,
                   %len: tensor<8xi32>) -> tensor<8x16x4x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<8x16x4x128xbf16>, tensor<8x4x1500x128xbf16> -> tensor<8x16x4x1500xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<8x16x4x1500xf32>
  %m = attn.mask %t lengths(%len : tensor<8xi32>) {kind = #attn.mask<causal, bottom_right, key_padding>} : tensor<8x16x4x1500xf32>
  %p = attn.softmax %m {dim = 3} : tensor<8x16x4x1500xf32> -> tensor<8x16x4x1500xbf16>
  %o = attn.matmul %p, %v : tensor<8x16x4x1500xbf16>, tensor<8x4x1500x128xbf16> -> tensor<8x16x4x128xbf16>
  return %o : tensor<8x16x4x128xbf16>
}
