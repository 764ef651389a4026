// REQUIRES: gpu
// Pages of 24 keys, a size that is not a power of two (the kernel divides
// instead of shifting) and that no key tile divides or is divided by:
// tiles straddle pages at every offset. 40 pages per sequence (960 keys),
// random lengths, four sequences of 2 new tokens, GQA 16/4 at head dim 128,
// causal aligned to each sequence's length; split and not.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --block-m=64 --block-n=32 --num-warps=4 --stages=2 --splits=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=64 --block-n=128 --num-warps=4 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --block-m=128 --block-n=64 --num-warps=8 --stages=3 --splits=4 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @paged(%q: tensor<4x16x2x128xbf16>, %kc: tensor<163x4x24x128xbf16>, %vc: tensor<163x4x24x128xbf16>,
                 %len: tensor<4xi32>, %table: tensor<4x40xi32>) -> tensor<4x16x2x128xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x40xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x16x2x128xbf16>, tensor<163x4x24x128xbf16>, tensor<163x4x24x128xbf16> -> tensor<4x16x2x128xbf16>
  return %o : tensor<4x16x2x128xbf16>
}
