// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a 2>%t.remarks | FileCheck %s --check-prefix=SM90
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: not attn-opt %s -split-input-file "-attn-select-config=arch=sm_90a variant=sm90" 2>/dev/null | FileCheck %s --check-prefix=SM90-CP
// (variant=sm90 cannot run @hd96, @hd72 and @transposed_k: that attn-opt fails.)
// RUN: attn-opt %s -split-input-file "-attn-select-config=arch=sm_90a variant=sm80" | FileCheck %s --check-prefix=SM90-MMA
// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_86 | FileCheck %s --check-prefix=SM86
// RUN: attn-opt %s -split-input-file "-attn-select-config=arch=sm_80 block-m=64 block-n=32 num-warps=4 stages=1" | FileCheck %s --check-prefix=OVERRIDE

// A large problem: on sm_90a, the warp-specialized kernel with the longest
// key tile its registers hold (without a mask, 4096 keys are past the
// lengths where whole 128-key tiles pay: see @causal_4096); the
// cp.async wgmma kernel with the largest tile, two warpgroups that cover
// each other's softmax (head dim 128 needs two per SM); with mma.sync, two
// m16 tiles per warp where the registers and shared memory allow; sm_86's
// 99 KB of shared memory allow fewer stages or narrower key tiles than
// sm_90a's 227 KB.
// SM90-LABEL: func @large_hd128
// SM90: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 176, num_warps = 12, stages = 2>
// SM90-CP-LABEL: func @large_hd128
// SM90-CP: config = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>
// SM90-MMA-LABEL: func @large_hd128
// SM90-MMA: config = #attn.config<variant = "sm80", block_m = 128, block_n = 32, num_warps = 4, stages = 2>
// SM86-LABEL: func @large_hd128
// SM86: config = #attn.config<variant = "sm80", block_m = 128, block_n = 32, num_warps = 8, stages = 2>
// OVERRIDE-LABEL: func @large_hd128
// OVERRIDE: config = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 1>
func.func @large_hd128(%q: tensor<8x16x4096x128xbf16>, %k: tensor<8x16x4096x128xbf16>, %v: tensor<8x16x4096x128xbf16>) -> tensor<8x16x4096x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32} : tensor<8x16x4096x128xbf16>, tensor<8x16x4096x128xbf16>, tensor<8x16x4096x128xbf16> -> tensor<8x16x4096x128xbf16>
  return %o : tensor<8x16x4096x128xbf16>
}

// -----

// Head dim 64 has half the product work per softmax: past 2048 keys the
// warp-specialized kernel takes three consumer warpgroups (192 rows), whose
// softmaxes hide better behind each other's products than two; the cp.async
// kernel needs about four warpgroups per SM, which 64x128 tiles with one
// each give (three fit).
// SM90-LABEL: func @large_hd64
// SM90: config = #attn.config<variant = "sm90ws", block_m = 192, block_n = 128, num_warps = 16, stages = 2>
// SM90-CP-LABEL: func @large_hd64
// SM90-CP: config = #attn.config<variant = "sm90", block_m = 64, block_n = 128, num_warps = 4, stages = 2>
func.func @large_hd64(%q: tensor<4x32x4096x64xbf16>, %k: tensor<4x32x4096x64xbf16>, %v: tensor<4x32x4096x64xbf16>) -> tensor<4x32x4096x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<4x32x4096x64xbf16>, tensor<4x32x4096x64xbf16>, tensor<4x32x4096x64xbf16> -> tensor<4x32x4096x64xbf16>
  return %o : tensor<4x32x4096x64xbf16>
}

// -----

// Up to 4096 causal keys, 128-row blocks: a 192-row block meets the
// diagonal in more masked tiles (12% slower at S = 1024 on the H200).
// SM90-LABEL: func @causal_hd64
// SM90: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>
func.func @causal_hd64(%q: tensor<16x32x1024x64xbf16>, %k: tensor<16x32x1024x64xbf16>, %v: tensor<16x32x1024x64xbf16>) -> tensor<16x32x1024x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<16x32x1024x64xbf16>, tensor<16x32x1024x64xbf16>, tensor<16x32x1024x64xbf16> -> tensor<16x32x1024x64xbf16>
  return %o : tensor<16x32x1024x64xbf16>
}

// -----

// One-token decode for any batch (as attn.sdpa compiles it): the query length
// alone says that a block holds a few rows, so the tiles stay small and the
// one-block-per-tile kernel (which packs the query heads) is taken.
// SM90-LABEL: func @decode_dynamic_batch
// SM90: config = #attn.config<variant = "sm90", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
func.func @decode_dynamic_batch(%q: tensor<?x32x1x128xbf16>, %k: tensor<?x8x?x128xbf16>, %v: tensor<?x8x?x128xbf16>) -> tensor<?x32x1x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32} : tensor<?x32x1x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16> -> tensor<?x32x1x128xbf16>
  return %o : tensor<?x32x1x128xbf16>
}

// -----

// Head dim 256: 128 x 80 tiles fill the warp-specialized kernel's shared
// memory; with cp.async one 64x64 block fills it, so two warpgroups share
// one; mma.sync fits registers only with 16 rows per warp.
// SM90-LABEL: func @hd256
// SM90: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 80, num_warps = 12, stages = 2>
// SM90-CP-LABEL: func @hd256
// SM90-CP: config = #attn.config<variant = "sm90", block_m = 128, block_n = 64, num_warps = 8, stages = 2>
// SM90-MMA-LABEL: func @hd256
// SM90-MMA: config = #attn.config<variant = "sm80", block_m = {{64|128}}, block_n = {{32|64}}, num_warps = {{4|8}}, stages = {{1|2}}>
// SM86-LABEL: func @hd256
// SM86: config = #attn.config<variant = "sm80"
func.func @hd256(%q: tensor<4x8x2048x256xbf16>, %k: tensor<4x8x2048x256xbf16>, %v: tensor<4x8x2048x256xbf16>) -> tensor<4x8x2048x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<4x8x2048x256xbf16>, tensor<4x8x2048x256xbf16>, tensor<4x8x2048x256xbf16> -> tensor<4x8x2048x256xbf16>
  return %o : tensor<4x8x2048x256xbf16>
}

// -----

// A config given by hand is kept, unless an override is given.
// SM90-LABEL: func @given
// SM90: config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
// OVERRIDE-LABEL: func @given
// OVERRIDE: config = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 1>
func.func @given(%q: tensor<1x1x128x64xbf16>, %k: tensor<1x1x128x64xbf16>, %v: tensor<1x1x128x64xbf16>) -> tensor<1x1x128x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} : tensor<1x1x128x64xbf16>, tensor<1x1x128x64xbf16>, tensor<1x1x128x64xbf16> -> tensor<1x1x128x64xbf16>
  return %o : tensor<1x1x128x64xbf16>
}

// -----

// TMA fills the last 64-column block of a head dim that is a multiple of 16
// with zeros: head dim 96 gets the warp-specialized kernel. Head dim 72 (a
// multiple of 8, not of wgmma's k16) and a transposed k stay on mma.sync,
// and a remark says why the fastest variant was not taken.
// REMARK: select-config.mlir:[[@LINE+14]]:8: remark: kernel variant sm80, not sm90ws: it needs head dims that are multiples of 16 up to 256, got 72/72
// REMARK: select-config.mlir:[[@LINE+22]]:8: remark: kernel variant sm80, not sm90ws: it needs an untransposed k (K^T tiles would need MN-major wgmma operands)
// SM90-LABEL: func @hd96
// SM90: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>
func.func @hd96(%q: tensor<4x8x2048x96xbf16>, %k: tensor<4x8x2048x96xbf16>, %v: tensor<4x8x2048x96xbf16>) -> tensor<4x8x2048x96xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.1 : f32} : tensor<4x8x2048x96xbf16>, tensor<4x8x2048x96xbf16>, tensor<4x8x2048x96xbf16> -> tensor<4x8x2048x96xbf16>
  return %o : tensor<4x8x2048x96xbf16>
}

// -----

// SM90-LABEL: func @hd72
// SM90: config = #attn.config<variant = "sm80"
func.func @hd72(%q: tensor<4x8x2048x72xbf16>, %k: tensor<4x8x2048x72xbf16>, %v: tensor<4x8x2048x72xbf16>) -> tensor<4x8x2048x72xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.1 : f32} : tensor<4x8x2048x72xbf16>, tensor<4x8x2048x72xbf16>, tensor<4x8x2048x72xbf16> -> tensor<4x8x2048x72xbf16>
  return %o : tensor<4x8x2048x72xbf16>
}

// -----

// SM90-LABEL: func @transposed_k
// SM90: config = #attn.config<variant = "sm80"
func.func @transposed_k(%q: tensor<4x8x2048x64xbf16>, %k: tensor<4x8x64x2048xbf16>, %v: tensor<4x8x2048x64xbf16>) -> tensor<4x8x2048x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, transpose_k} : tensor<4x8x2048x64xbf16>, tensor<4x8x64x2048xbf16>, tensor<4x8x2048x64xbf16> -> tensor<4x8x2048x64xbf16>
  return %o : tensor<4x8x2048x64xbf16>
}

// -----

// Past 4096 keys under a causal mask (2048 without) the per-tile
// bookkeeping outweighs a partial last tile and a second diagonal tile: the
// longest key tile the consumers' registers hold (176 at head dim 128;
// bench/NOTES.md steps 17 and 19: 4% faster than 128 at 16k causal, 6% at
// 8k causal, 4% at 4k without a mask).
// SM90-LABEL: func @long_keys
// SM90: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 176, num_warps = 12, stages = 2>
func.func @long_keys(%q: tensor<1x16x16384x128xbf16>, %k: tensor<1x16x16384x128xbf16>, %v: tensor<1x16x16384x128xbf16>) -> tensor<1x16x16384x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32, mask = #attn.mask<causal>} : tensor<1x16x16384x128xbf16>, tensor<1x16x16384x128xbf16>, tensor<1x16x16384x128xbf16> -> tensor<1x16x16384x128xbf16>
  return %o : tensor<1x16x16384x128xbf16>
}

// -----

// The thresholds: 4096 causal keys keep 128-key tiles, 8192 do not; 2048
// keys without a mask keep them, 4096 do not.
// SM90-LABEL: func @causal_4096
// SM90: block_n = 128,
// SM90-LABEL: func @causal_8192
// SM90: block_n = 176,
// SM90-LABEL: func @full_2048
// SM90: block_n = 128,
// SM90-LABEL: func @full_4096
// SM90: block_n = 176,
func.func @causal_4096(%q: tensor<4x16x4096x128xbf16>, %k: tensor<4x16x4096x128xbf16>, %v: tensor<4x16x4096x128xbf16>) -> tensor<4x16x4096x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32, mask = #attn.mask<causal>} : tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16> -> tensor<4x16x4096x128xbf16>
  return %o : tensor<4x16x4096x128xbf16>
}
func.func @causal_8192(%q: tensor<2x16x8192x128xbf16>, %k: tensor<2x16x8192x128xbf16>, %v: tensor<2x16x8192x128xbf16>) -> tensor<2x16x8192x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32, mask = #attn.mask<causal>} : tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16>, tensor<2x16x8192x128xbf16> -> tensor<2x16x8192x128xbf16>
  return %o : tensor<2x16x8192x128xbf16>
}
func.func @full_2048(%q: tensor<8x16x2048x128xbf16>, %k: tensor<8x16x2048x128xbf16>, %v: tensor<8x16x2048x128xbf16>) -> tensor<8x16x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32} : tensor<8x16x2048x128xbf16>, tensor<8x16x2048x128xbf16>, tensor<8x16x2048x128xbf16> -> tensor<8x16x2048x128xbf16>
  return %o : tensor<8x16x2048x128xbf16>
}
func.func @full_4096(%q: tensor<4x16x4096x128xbf16>, %k: tensor<4x16x4096x128xbf16>, %v: tensor<4x16x4096x128xbf16>) -> tensor<4x16x4096x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32} : tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16> -> tensor<4x16x4096x128xbf16>
  return %o : tensor<4x16x4096x128xbf16>
}

// -----

// A dynamic key length: 128-key tiles for up to 4096 causal keys, and the tiles
// for long keys beside them (the launch plan's long_keys); both kernels are
// compiled and a launch picks by its key length. A static length or a
// forced tile gets no second config. The plan also names the narrower tiles
// of each (where ptxas spills it) and, for a persistent kernel, the cp.async
// kernel of launches TMA cannot read, with its narrower tiles.
// SM90-LABEL: func @dynamic_keys
// SM90: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>, mask = #attn.mask<causal>, plan = #attn.launch_plan<spill_block_n = [112, 96, 80, 64], long_keys = <variant = "sm90ws", block_m = 128, block_n = 176, num_warps = 12, stages = 2>, long_keys_spill_block_n = [160, 144, 128, 112, 96, 80, 64], cp_async = <variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, cp_async_spill_block_n = [64]>
// OVERRIDE-LABEL: func @dynamic_keys
// OVERRIDE-NOT: long_keys =
// SM90-LABEL: func @long_keys_static
// SM90-NOT: long_keys =
func.func @dynamic_keys(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %v: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32, mask = #attn.mask<causal>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
func.func @long_keys_static(%q: tensor<1x16x16384x128xbf16>, %k: tensor<1x16x16384x128xbf16>, %v: tensor<1x16x16384x128xbf16>) -> tensor<1x16x16384x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088388 : f32} : tensor<1x16x16384x128xbf16>, tensor<1x16x16384x128xbf16>, tensor<1x16x16384x128xbf16> -> tensor<1x16x16384x128xbf16>
  return %o : tensor<1x16x16384x128xbf16>
}
