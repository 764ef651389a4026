// REQUIRES: gpu
// Chunked prefill against a paged cache: 200 new tokens per sequence on
// caches of up to 1024 keys (pages of 32), causal with a sliding window of
// 256 aligned to each sequence's length, sinks, GQA 16/4 at head dim 128,
// f16; a short sequence's first new tokens see no key.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --splits=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --splits=3 --poison-padding %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @prefill(%q: tensor<3x16x200x128xf16>, %kc: tensor<100x4x32x128xf16>, %vc: tensor<100x4x32x128xf16>,
                   %len: tensor<3xi32>, %table: tensor<3x32xi32>, %s: tensor<16xf32>) -> (tensor<3x16x200x128xf16>, tensor<3x16x200xf32>) {
  %o, %lse = attn.flash %q, %kc, %vc lengths(%len : tensor<3xi32>) sinks(%s : tensor<16xf32>) block_table(%table : tensor<3x32xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, window = [255, 0], bottom_right, key_padding>}
    : tensor<3x16x200x128xf16>, tensor<100x4x32x128xf16>, tensor<100x4x32x128xf16> -> tensor<3x16x200x128xf16>, tensor<3x16x200xf32>
  return %o, %lse : tensor<3x16x200x128xf16>, tensor<3x16x200xf32>
}
