// REQUIRES: gpu
// One-token decode from a paged cache (pages of 16 keys, 64 pages per
// sequence, tables drawn without repeats, random cache_seqlens), GQA 32/8
// at head dim 128, causal aligned to each sequence's length; split-KV
// chosen, forced and off; the caches also in flash_attn's (pages,
// page_size, heads, dim) memory (--layout=bshd).
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --splits=8 %s | FileCheck %s
// RUN: attn-run --check --splits=1 %s | FileCheck %s
// RUN: attn-run --check --layout=bshd %s | FileCheck %s
// RUN: attn-run --check --seed=7 --variant=sm80 --splits=5 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --splits=8 --layout=bshd %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @decode(%q: tensor<8x32x1x128xbf16>, %kc: tensor<600x8x16x128xbf16>, %vc: tensor<600x8x16x128xbf16>,
                  %len: tensor<8xi32>, %table: tensor<8x64xi32>) -> (tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>) {
  %o, %lse = attn.flash %q, %kc, %vc lengths(%len : tensor<8xi32>) block_table(%table : tensor<8x64xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<8x32x1x128xbf16>, tensor<600x8x16x128xbf16>, tensor<600x8x16x128xbf16> -> tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>
  return %o, %lse : tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>
}
