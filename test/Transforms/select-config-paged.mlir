// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --allow-empty --check-prefix=REMARK < %t.remarks

// Paged caches: the decode model keeps the cp.async kernels where they
// stay memory-bound (no remark: the TMA kernel reads pages too, a box per
// page, and is not the faster there); where the page addressing leaves the
// wgmma kernel no registers (head dim 256 with a score_mod), mma.sync.
// REMARK-NOT: remark
// CHECK-LABEL: func @decode
// CHECK: config = #attn.config<variant = "sm90"
func.func @decode(%q: tensor<8x32x1x128xbf16>, %kc: tensor<512x8x16x128xbf16>, %len: tensor<8xi32>, %t: tensor<8x64xi32>) -> tensor<8x32x1x128xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<8xi32>) block_table(%t : tensor<8x64xi32>)
      {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<8x32x1x128xbf16>, tensor<512x8x16x128xbf16>, tensor<512x8x16x128xbf16> -> tensor<8x32x1x128xbf16>
  return %o : tensor<8x32x1x128xbf16>
}

// -----

// CHECK-LABEL: func @hd256_score_mod
// CHECK: config = #attn.config<variant = "sm80"
func.func @hd256_score_mod(%q: tensor<4x16x4x256xbf16>, %kc: tensor<260x8x16x256xbf16>, %len: tensor<4xi32>, %t: tensor<4x64xi32>) -> tensor<4x16x4x256xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<4xi32>) block_table(%t : tensor<4x64xi32>)
      {scale = 0.0625 : f32, mask = #attn.mask<key_padding>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t2 = math.tanh %x : f32
    attn.yield %t2 : f32
  } : tensor<4x16x4x256xbf16>, tensor<260x8x16x256xbf16>, tensor<260x8x16x256xbf16> -> tensor<4x16x4x256xbf16>
  return %o : tensor<4x16x4x256xbf16>
}

// -----

// 16 draft tokens x 8 query heads of a K/V head: 128 packed rows leave the
// cp.async kernels compute-bound, so the TMA kernel reads the pages.
// CHECK-LABEL: func @draft16
// CHECK: config = #attn.config<variant = "sm90ws"
func.func @draft16(%q: tensor<8x64x16x128xbf16>, %kc: tensor<4096x8x16x128xbf16>, %len: tensor<8xi32>, %t: tensor<8x512xi32>) -> tensor<8x64x16x128xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<8xi32>) block_table(%t : tensor<8x512xi32>)
      {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<8x64x16x128xbf16>, tensor<4096x8x16x128xbf16>, tensor<4096x8x16x128xbf16> -> tensor<8x64x16x128xbf16>
  return %o : tensor<8x64x16x128xbf16>
}
