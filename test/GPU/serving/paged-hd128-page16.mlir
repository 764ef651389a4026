// REQUIRES: gpu
// Pages of 16 keys at head dim 128, each way a tile can be copied
// (common.cuh): 64-key tiles as TilePages (the dense copies, four pages a
// tile, their table entries read a tile ahead) with four warps (a thread's
// rows 8 apart) and with eight in one stage (16 apart); 128-key tiles
// (eight pages: more than TilePages keeps) page by page (PageByPage, 16
// threads a page); the sm80 layout; 96-key tiles (six pages, which 128
// threads do not share evenly) row by row (PagedRowLookup).
// 64 pages per sequence (1024 keys), random lengths, four sequences of 5
// new tokens, GQA 16/4, causal aligned to each sequence's length, a window,
// split and not.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=64 --block-n=64 --num-warps=4 --stages=2 --splits=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=64 --block-n=128 --num-warps=4 --stages=3 --splits=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=128 --block-n=64 --num-warps=8 --stages=1 --splits=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=64 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=64 --block-n=96 --num-warps=4 --stages=2 --splits=2 %s | FileCheck %s
// With NaN in the keys no sequence reads (an uninitialized cache):
// RUN: attn-run --check --poison-padding %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=192 --block-n=64 --num-warps=16 --stages=2 --splits=3 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @paged(%q: tensor<4x16x5x128xbf16>, %kc: tensor<300x4x16x128xbf16>, %vc: tensor<300x4x16x128xbf16>,
                 %len: tensor<4xi32>, %table: tensor<4x64xi32>) -> tensor<4x16x5x128xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x64xi32>)
      {scale = 0.0883883461 : f32, mask = #attn.mask<causal, window = [700, 0], bottom_right, key_padding>}
    : tensor<4x16x5x128xbf16>, tensor<300x4x16x128xbf16>, tensor<300x4x16x128xbf16> -> tensor<4x16x5x128xbf16>
  return %o : tensor<4x16x5x128xbf16>
}
