// RUN: attn-opt %s --attn-derive-backward=bias-grad=true --attn-select-config=arch=sm_80 | attn-translate --attn-to-cuda | FileCheck %s
// RUN: attn-opt %s --attn-derive-backward=bias-grad=true --attn-select-config=arch=sm_90a | attn-translate --attn-to-cuda | FileCheck %s --check-prefix=SM90

// On sm_90a the same step binds the wgmma templates: with a bias and a
// score_mod at head dim 64, one warpgroup of 64 keys and query tiles of 64
// (registers), the sm80 dQ kernel for the deterministic mode.
// SM90: // attn_bwd_bf16_hd64_gqa2_causal_dbias_mod_sm90_64x64w4s2: 128 threads, 75776 bytes of shared memory (dQ kernel: 128, 55296)
// SM90-NEXT: #include "attn/sm90/flash_bwd.cuh"
// SM90: using KV = attn::sm90::FlashBackwardKV<Config>;
// SM90-NEXT: using Q = attn::sm90::FlashBackwardQ<Config>;
// SM90-NEXT: static_assert(KV::kSharedBytes == 75776 && Q::kSharedBytes == 55296 && Q::kThreads == 128,
// SM90: extern "C" __global__ void __launch_bounds__(128, 1) [[NAME:attn_bwd_[a-z0-9_]+]](const attn::FlashBwdParams params) {
// SM90: extern "C" __global__ void __launch_bounds__(128, 1) [[NAME]]_dq(const attn::FlashBwdParams params) {

// A training step: the forward writes its logsumexp; the backward's unit
// binds the mask, the bias gradient and GQA into the sm80 templates, prints
// the score_mod and its derived derivative with the forward's printer, and
// defines the four entries the runtime launches.
// CHECK: attn_fwd_bf16_hd64_causal_bias_mod_lse_sm80
// CHECK: // -----
// CHECK: // attn_bwd_bf16_hd64_gqa2_causal_dbias_mod_sm80_64x64w8s2: 256 threads, 74752 bytes of shared memory (dQ kernel: 128, 55296)
// CHECK-NEXT: #include "attn/sm80/flash_bwd.cuh"
// CHECK: using BiasElement = float;
// CHECK: static constexpr bool kCausal = true;
// CHECK: static constexpr bool kBias = true;
// CHECK-NEXT: static constexpr bool kScoreMod = true;
// CHECK-NEXT: static constexpr bool kBiasGrad = true;
// CHECK-NEXT: static constexpr bool kVarlen = false;
// CHECK-NEXT: static constexpr bool kPaged = false;
// CHECK-NEXT: static constexpr int kPackGroup = 1;
// CHECK-NEXT: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const float v0 = __int_as_float(0x41f00000u) /* 30 */;
// CHECK-NEXT: const float v1 = (score / v0);
// CHECK-NEXT: const float v2 = tanhf(v1);
// CHECK-NEXT: const float v3 = (v2 * v0);
// CHECK-NEXT: return v3;
// CHECK: static __device__ __forceinline__ float scoreModGrad(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK: tanhf(
// CHECK: return v{{[0-9]+}};
// CHECK: using KV = attn::sm80::FlashBackwardKV<Config>;
// CHECK-NEXT: using Q = attn::sm80::FlashBackwardQ<Config>;
// CHECK-NEXT: static_assert(KV::kSharedBytes == 74752 && Q::kSharedBytes == 55296 && Q::kThreads == 128,
// CHECK: extern "C" __global__ void __launch_bounds__(256, 1) [[NAME:attn_bwd_[a-z0-9_]+]](const attn::FlashBwdParams params) {
// CHECK: extern "C" __global__ void __launch_bounds__(128, 1) [[NAME]]_dq(const attn::FlashBwdParams params) {
// CHECK: __launch_bounds__(attn::kBackwardRowThreads) [[NAME]]_pre(
// CHECK: __launch_bounds__(attn::kBackwardRowThreads) [[NAME]]_convert(
func.func @step(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x2x300x64xbf16>, %v: tensor<2x2x300x64xbf16>,
    %bias: tensor<2x4x200x300xf32>) -> tensor<2x4x200x64xbf16> {
  %o = attn.flash %q, %k, %v bias(%bias : tensor<2x4x200x300xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bias>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<2x4x200x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
