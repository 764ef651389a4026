// REQUIRES: gpu
// Decode at head dim 256 (Gemma's) with GQA 8/2 and per-sequence lengths:
// with four warps a thread's cp.async copies step 4 rows, half the 128-byte
// swizzle's period (common.cuh RowSteps: two base addresses per thread, then
// constants); eight warps step 8 rows and sm80's padded layout steps any.
// One token and 5 (the query heads of a K/V head packed into a block's rows).
// RUN: attn-run --check --variant=sm90 --block-m=64 --block-n=64 --num-warps=4 --stages=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=64 --block-n=64 --num-warps=4 --stages=2 --splits=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=128 --block-n=64 --num-warps=8 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=64 --block-n=32 --num-warps=4 --stages=2 %s | FileCheck %s
// RUN: attn-run --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @decode(%q: tensor<3x8x1x256xbf16>, %k: tensor<3x2x700x256xbf16>, %v: tensor<3x2x700x256xbf16>,
                  %len: tensor<3xi32>, %q5: tensor<3x8x5x256xbf16>) -> (tensor<3x8x1x256xbf16>, tensor<3x8x5x256xbf16>) {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<3xi32>)
      {scale = 0.0625 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<3x8x1x256xbf16>, tensor<3x2x700x256xbf16>, tensor<3x2x700x256xbf16> -> tensor<3x8x1x256xbf16>
  %o5 = attn.flash %q5, %k, %v lengths(%len : tensor<3xi32>)
      {scale = 0.0625 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<3x8x5x256xbf16>, tensor<3x2x700x256xbf16>, tensor<3x2x700x256xbf16> -> tensor<3x8x5x256xbf16>
  return %o, %o5 : tensor<3x8x1x256xbf16>, tensor<3x8x5x256xbf16>
}
