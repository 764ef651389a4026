// RUN: attn-translate --attn-to-cuda %s | FileCheck %s

// A configured op becomes one translation unit: the template include, the
// Config of typed constants, and an extern "C" entry named for what it is.
// CHECK: // attn_fwd_bf16_hd128_sm80_128x64w4s2: 128 threads, 104448 bytes of shared memory
// CHECK: #include "attn/sm80/flash_fwd.cuh"
// CHECK: using Element = attn::BF16;
// CHECK: static constexpr int kHeadDimQK = 128;
// CHECK: static constexpr int kHeadDimV = 128;
// CHECK: static constexpr int kBlockM = 128;
// CHECK: static constexpr int kBlockN = 64;
// CHECK: static constexpr int kNumWarps = 4;
// CHECK: static constexpr int kStages = 2;
// CHECK: static constexpr bool kCausal = false;
// CHECK: static constexpr bool kScoreMod = false;
// CHECK: static constexpr bool kTransposeK = false;
// CHECK: return score;
// CHECK: using Kernel = attn::sm80::FlashForward<Config>;
// CHECK: static_assert(Kernel::kSharedBytes == 104448
// CHECK: extern "C" __global__ void __launch_bounds__(128) attn_fwd_bf16_hd128_sm80_128x64w4s2(const attn::FlashParams params) {
// CHECK-NEXT: extern __shared__ __align__(16) char smem[];
// CHECK-NEXT: Kernel::run(params, smem);
// The split-KV merge is a second entry of the same module.
// CHECK: extern "C" __global__ void __launch_bounds__(attn::kCombineThreads) attn_fwd_bf16_hd128_sm80_128x64w4s2_combine(const attn::FlashParams params) {
// CHECK-NEXT: attn::FlashCombine<Config>::run(params);
func.func @plain(%q: tensor<2x8x512x128xbf16>, %k: tensor<2x8x512x128xbf16>, %v: tensor<2x8x512x128xbf16>) -> tensor<2x8x512x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32, config = #attn.config<variant = "sm80", block_m = 128, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<2x8x512x128xbf16>, tensor<2x8x512x128xbf16>, tensor<2x8x512x128xbf16> -> tensor<2x8x512x128xbf16>
  return %o : tensor<2x8x512x128xbf16>
}
