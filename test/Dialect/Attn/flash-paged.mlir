// RUN: attn-opt %s | attn-opt | FileCheck %s
// RUN: attn-opt %s --mlir-print-op-generic | attn-opt | FileCheck %s

// Paged K/V caches: pages [pages, Hkv, page_size, D], a block table
// [batch, pages per sequence] and each sequence's length (cache_seqlens).

// CHECK-LABEL: func @decode
// CHECK: attn.flash %{{.*}}, %{{.*}}, %{{.*}} lengths(%{{.*}} : tensor<8xi32>) block_table(%{{.*}} : tensor<8x64xi32>) {mask = #attn.mask<causal, bottom_right, key_padding>, scale = {{.*}} : f32}
// CHECK-SAME: : tensor<8x32x1x128xbf16>, tensor<512x8x16x128xbf16>, tensor<512x8x16x128xbf16> -> tensor<8x32x1x128xbf16>
func.func @decode(%q: tensor<8x32x1x128xbf16>, %kc: tensor<512x8x16x128xbf16>, %vc: tensor<512x8x16x128xbf16>,
                  %len: tensor<8xi32>, %table: tensor<8x64xi32>) -> tensor<8x32x1x128xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<8xi32>) block_table(%table : tensor<8x64xi32>)
      {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<8x32x1x128xbf16>, tensor<512x8x16x128xbf16>, tensor<512x8x16x128xbf16> -> tensor<8x32x1x128xbf16>
  return %o : tensor<8x32x1x128xbf16>
}

// Chunked prefill against a cache of any page size, with sinks and a bias
// over the logical keys (pages per sequence x page size = 256).
// CHECK-LABEL: func @prefill_dynamic
// CHECK: attn.flash %{{.*}}, %{{.*}}, %{{.*}} lengths(%{{.*}} : tensor<?xi32>) bias(%{{.*}} : tensor<1x4x1x256xf32>) sinks(%{{.*}} : tensor<4xf32>) block_table(%{{.*}} : tensor<?x2xi32>)
func.func @prefill_dynamic(%q: tensor<?x4x100x64xf16>, %kc: tensor<?x4x128x64xf16>, %len: tensor<?xi32>,
                           %bias: tensor<1x4x1x256xf32>, %s: tensor<4xf32>, %table: tensor<?x2xi32>) -> tensor<?x4x100x64xf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<?xi32>) bias(%bias : tensor<1x4x1x256xf32>) sinks(%s : tensor<4xf32>)
      block_table(%table : tensor<?x2xi32>) {scale = 0.125 : f32, mask = #attn.mask<key_padding, bias>}
    : tensor<?x4x100x64xf16>, tensor<?x4x128x64xf16>, tensor<?x4x128x64xf16> -> tensor<?x4x100x64xf16>
  return %o : tensor<?x4x100x64xf16>
}
