// REQUIRES: gpu
// Pages of 64 keys (32 per sequence, 2048 keys at most, random lengths):
// four sequences of 3 new tokens (multi-token decode), GQA 8/2 at head dim
// 64, causal aligned to each sequence's length, split and not.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=64 --block-n=32 --num-warps=4 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --splits=4 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=192 --block-n=128 --num-warps=16 --stages=2 --splits=4 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @paged(%q: tensor<4x8x3x64xbf16>, %kc: tensor<131x2x64x64xbf16>, %vc: tensor<131x2x64x64xbf16>,
                 %len: tensor<4xi32>, %table: tensor<4x32xi32>) -> tensor<4x8x3x64xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x32xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x8x3x64xbf16>, tensor<131x2x64x64xbf16>, tensor<131x2x64x64xbf16> -> tensor<4x8x3x64xbf16>
  return %o : tensor<4x8x3x64xbf16>
}
