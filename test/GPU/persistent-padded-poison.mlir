// REQUIRES: gpu
// Key padding on the persistent kernel with more work tiles than blocks
// (2 x 16 heads x 10 query blocks of 128 = 320 tiles on 132 SMs), NaN in
// every key and value past each sequence's length (an uninitialized
// cache): each block runs several tiles, so the V rows past the keys are
// cleared in later stages and phases of the ring too, with one, two and
// three consumers, two and three stages; the cp.async kernels alike.
// RUN: attn-run --check --poison-padding --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --block-m=128 --block-n=128 --num-warps=12 --stages=3 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --block-m=64 --block-n=128 --num-warps=8 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --block-m=192 --block-n=80 --num-warps=16 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --seed=2 --splits=2 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @padded(%q: tensor<2x16x1200x128xbf16>, %k: tensor<2x4x1200x128xbf16>, %v: tensor<2x4x1200x128xbf16>, %len: tensor<2xi32>) -> tensor<2x16x1200x128xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x16x1200x128xbf16>, tensor<2x4x1200x128xbf16>, tensor<2x4x1200x128xbf16> -> tensor<2x16x1200x128xbf16>
  return %o : tensor<2x16x1200x128xbf16>
}
