// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a | FileCheck %s

// Decode (a few static query tokens, any batch and cache length, as
// attn.with_kvcache compiles it): the memory model of SelectConfig.cpp
// picks tiles that keep two K/V tiles in flight per SM, across variants.

// Head dim 128, GQA 32/8, 16 tokens: 64 packed rows in 64x64 tiles, two
// blocks of two stages per SM (94% of HBM on the H200): unchanged.
// CHECK-LABEL: func @hd128_q16
// CHECK: config = #attn.config<variant = "sm90", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
func.func @hd128_q16(%q: tensor<?x32x16x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>, %len: tensor<?xi32>) -> tensor<?x32x16x128xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<?xi32>) {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<?x32x16x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x16x128xbf16>
  return %o : tensor<?x32x16x128xbf16>
}

// -----

// One token of GQA 32/8: 4 packed rows, memory-bound in every variant; the
// persistent kernel does not win by its margin, the cp.async kernel stays.
// CHECK-LABEL: func @hq32_q1
// CHECK: config = #attn.config<variant = "sm90", block_m = 64
func.func @hq32_q1(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>, %len: tensor<?xi32>) -> tensor<?x32x1x128xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<?xi32>) {scale = 0.0883883461 : f32, mask = #attn.mask<key_padding>}
    : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x1x128xbf16>
  return %o : tensor<?x32x1x128xbf16>
}

// -----

// Head dim 256: a 64x64 block of two stages fills the shared memory, one
// block per SM and one tile in flight (53% of HBM); a third stage fits
// (230400 bytes) and keeps two in flight.
// CHECK-LABEL: func @hd256_q1
// CHECK: config = #attn.config<variant = "sm90", block_m = 64, block_n = 64, num_warps = 4, stages = 3>
func.func @hd256_q1(%q: tensor<?x32x1x256xbf16>, %k: tensor<?x8x?x256xbf16>, %v: tensor<?x8x?x256xbf16>, %len: tensor<?xi32>) -> tensor<?x32x1x256xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<?xi32>) {scale = 0.0625 : f32, mask = #attn.mask<key_padding>}
    : tensor<?x32x1x256xbf16>, tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16> -> tensor<?x32x1x256xbf16>
  return %o : tensor<?x32x1x256xbf16>
}

// -----

// GQA 64/8 with 16 tokens: 128 packed rows, which leave the cp.async
// wgmma kernel compute-bound (its ridge is ~100 rows; 64-row tiles would
// read K/V twice): the warp-specialized kernel takes them (ridge ~135
// rows), loading Q as one box of 16 tokens by 8 heads.
// CHECK-LABEL: func @hq64_q16
// CHECK: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>
func.func @hq64_q16(%q: tensor<?x64x16x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>, %len: tensor<?xi32>) -> tensor<?x64x16x128xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<?xi32>) {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<?x64x16x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x64x16x128xbf16>
  return %o : tensor<?x64x16x128xbf16>
}

// -----

// A paged cache at head dim 256: the page lookups leave the wgmma kernel
// no tile that fits its registers, and mma.sync's 64x32 tiles fit two
// blocks per SM.
// CHECK-LABEL: func @paged_hd256
// CHECK: config = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 2>
func.func @paged_hd256(%q: tensor<?x32x4x256xbf16>, %kc: tensor<?x8x?x256xbf16>, %len: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x32x4x256xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<?xi32>) block_table(%t : tensor<?x?xi32>)
      {scale = 0.0625 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<?x32x4x256xbf16>, tensor<?x8x?x256xbf16>, tensor<?x8x?x256xbf16> -> tensor<?x32x4x256xbf16>
  return %o : tensor<?x32x4x256xbf16>
}

// -----

// Prefill is not decode: more than 16 static queries keep the prefill model
// (the warp-specialized kernel).
// CHECK-LABEL: func @prefill_hd256
// CHECK: config = #attn.config<variant = "sm90ws"
func.func @prefill_hd256(%q: tensor<4x8x2048x256xbf16>, %k: tensor<4x8x2048x256xbf16>, %v: tensor<4x8x2048x256xbf16>) -> tensor<4x8x2048x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<4x8x2048x256xbf16>, tensor<4x8x2048x256xbf16>, tensor<4x8x2048x256xbf16> -> tensor<4x8x2048x256xbf16>
  return %o : tensor<4x8x2048x256xbf16>
}
