// REQUIRES: gpu
// 16 draft tokens x 8 query heads of each K/V head (GQA 64/8): 128 packed
// rows per (batch, K/V head), in one or two blocks depending on the tile,
// causal aligned to each sequence's length, head dim 64, f16.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=64 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=128 --block-n=64 --num-warps=8 --stages=2 --splits=4 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// The warp-specialized kernel loads Q as one TMA box of tokens x heads:
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=192 --block-n=96 --num-warps=16 --stages=2 --splits=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=3 --layout=bshd %s | FileCheck %s
// With NaN in the keys no sequence reads (an uninitialized cache):
// RUN: attn-run --check --poison-padding --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --block-m=192 --block-n=96 --num-warps=16 --stages=2 --splits=3 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @draft16(%q: tensor<4x64x16x64xf16>, %k: tensor<4x8x3000x64xf16>, %v: tensor<4x8x3000x64xf16>,
                   %len: tensor<4xi32>) -> (tensor<4x64x16x64xf16>, tensor<4x64x16xf32>) {
  %o, %lse = attn.flash %q, %k, %v lengths(%len : tensor<4xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x64x16x64xf16>, tensor<4x8x3000x64xf16>, tensor<4x8x3000x64xf16> -> tensor<4x64x16x64xf16>, tensor<4x64x16xf32>
  return %o, %lse : tensor<4x64x16x64xf16>, tensor<4x64x16xf32>
}
