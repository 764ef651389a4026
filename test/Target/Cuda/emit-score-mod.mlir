// RUN: attn-translate --attn-to-cuda %s | FileCheck %s

// The score_mod region becomes straight-line device code over the helpers
// of attn/score_mod.cuh; constants are bit patterns (exact), the indices are
// 64-bit (index), a constant from outside the region is inlined.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const float v0 = __int_as_float(0x41f00000u) /* 30 */;
// CHECK-NEXT: const float v1 = (score / v0);
// CHECK-NEXT: const float v2 = tanhf(v1);
// CHECK-NEXT: const float v3 = (v2 * v0);
// CHECK-NEXT: const long long v4 = attn::scoremod::subi(kv_idx, q_idx);
// CHECK-NEXT: const int v5 = attn::scoremod::castsi<int>(v4);
// CHECK-NEXT: const float v6 = attn::scoremod::sitofp(v5);
// CHECK-NEXT: const float v7 = __int_as_float(0xbd800000u) /* -0.0625 */;
// CHECK-NEXT: const float v8 = (v6 * v7);
// CHECK-NEXT: const long long v9 = 0LL;
// CHECK-NEXT: const bool v10 = attn::scoremod::slt(v4, v9);
// CHECK-NEXT: const float v11 = (v10 ? v8 : v3);
// CHECK-NEXT: const float v12 = (v11 + v3);
// CHECK-NEXT: return v12;
// CHECK-NEXT: }
func.func @mods(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %slope = arith.constant -0.0625 : f32
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i32
    %df = arith.sitofp %di : i32 to f32
    %bias = arith.mulf %df, %slope : f32
    %zero = arith.constant 0 : index
    %neg = arith.cmpi slt, %dist, %zero : index
    %sel = arith.select %neg, %bias, %y : f32
    %r = arith.addf %sel, %y : f32
    attn.yield %r : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
