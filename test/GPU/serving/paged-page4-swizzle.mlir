// REQUIRES: gpu
// Pages of 4 and 2 keys at head dim 128 on the wgmma kernel: pages copied
// page by page start at rows that are not multiples of the 128-byte
// swizzle's 8-row period, and a page's threads (8 or 4 at 64-key tiles)
// cover fewer than a row's 16 chunks each step. 256 pages per sequence
// (1024 keys; the v cache's pages of 2 keys are the same bytes), random
// lengths, three sequences of 2 new tokens, GQA 8/2.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=64 --block-n=64 --num-warps=4 --stages=2 --splits=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=64 --block-n=128 --num-warps=4 --stages=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=1 %s | FileCheck %s
// With NaN in the keys no sequence reads (an uninitialized cache):
// RUN: attn-run --check --poison-padding %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @paged(%q: tensor<3x8x2x128xbf16>, %kc: tensor<900x2x4x128xbf16>, %vc: tensor<900x2x4x128xbf16>,
                 %len: tensor<3xi32>, %table: tensor<3x256xi32>) -> tensor<3x8x2x128xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<3xi32>) block_table(%table : tensor<3x256xi32>)
      {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<3x8x2x128xbf16>, tensor<900x2x4x128xbf16>, tensor<900x2x4x128xbf16> -> tensor<3x8x2x128xbf16>
  return %o : tensor<3x8x2x128xbf16>
}
