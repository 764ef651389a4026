// RUN: attn-translate --attn-to-cuda %s -split-input-file | FileCheck %s

// Captures are read through captures[i] (FlashParams::score_mod_captures):
// each index clamped to its extent (dimensions of extent 1 read index 0),
// the row-major offset of the static shape; f32, f16/bf16 (as float), i1,
// i32 and i64 elements.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const float v0 = attn::scoremod::Capture<float>::load(captures[0], attn::scoremod::clampIndex(h, 4LL));
// CHECK-NEXT: const long long v1 = 63LL;
// CHECK-NEXT: const long long v2 = attn::scoremod::subi(q_idx, kv_idx);
// CHECK-NEXT: const long long v3 = attn::scoremod::addi(v2, v1);
// CHECK-NEXT: const float v4 = attn::scoremod::Capture<attn::BF16>::load(captures[1], attn::scoremod::clampIndex(v3, 127LL));
// CHECK-NEXT: const float v5 = v4;
// CHECK-NEXT: const long long v6 = 8LL;
// CHECK-NEXT: const long long v7 = attn::scoremod::remui(kv_idx, v6);
// CHECK-NEXT: const int v8 = attn::scoremod::Capture<int>::load(captures[2], attn::scoremod::clampIndex(h, 4LL) * 8LL + attn::scoremod::clampIndex(v7, 8LL));
// CHECK-NEXT: const float v9 = attn::scoremod::sitofp(v8);
// CHECK-NEXT: const long long v10 = 4LL;
// CHECK-NEXT: const long long v11 = attn::scoremod::remui(q_idx, v10);
// CHECK-NEXT: const long long v12 = attn::scoremod::remui(kv_idx, v10);
// CHECK-NEXT: const bool v13 = attn::scoremod::Capture<bool>::load(captures[3], attn::scoremod::clampIndex(v11, 4LL) * 4LL + attn::scoremod::clampIndex(v12, 4LL));
// CHECK-NEXT: const float v14 = (score + v0);
// CHECK-NEXT: const float v15 = (v14 + v5);
// CHECK-NEXT: const float v16 = (v15 + v9);
// CHECK-NEXT: const float v17 = (v13 ? v16 : score);
// CHECK-NEXT: return v17;
// CHECK-NEXT: }
func.func @captures(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>, %bias: tensor<4xf32>, %rel: tensor<127xbf16>, %tab: tensor<1x4x8xi32>, %flag: tensor<f16>, %big: tensor<2x3x1x5xi64>, %keep: tensor<4x4xi1>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%bias, %rel, %tab, %keep : tensor<4xf32>, tensor<127xbf16>, tensor<1x4x8xi32>, tensor<4x4xi1>) {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bias_t: tensor<4xf32>, %rel_t: tensor<127xbf16>, %tab_t: tensor<1x4x8xi32>, %keep_t: tensor<4x4xi1>):
    %hb = tensor.extract %bias_t[%h] : tensor<4xf32>
    %off = arith.constant 63 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %off : index
    %rel16 = tensor.extract %rel_t[%r] : tensor<127xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %c8 = arith.constant 8 : index
    %jm = arith.remui %j, %c8 : index
    %t = tensor.extract %tab_t[%b, %h, %jm] : tensor<1x4x8xi32>
    %tf = arith.sitofp %t : i32 to f32
    %c4 = arith.constant 4 : index
    %im = arith.remui %i, %c4 : index
    %km = arith.remui %j, %c4 : index
    %kp = tensor.extract %keep_t[%im, %km] : tensor<4x4xi1>
    %s0 = arith.addf %x, %hb : f32
    %s1 = arith.addf %s0, %relf : f32
    %s2 = arith.addf %s1, %tf : f32
    %y = arith.select %kp, %s2, %x : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}

// -----

// A rank-0 capture reads its one element; rank 4 strides every index.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const float v0 = attn::scoremod::Capture<attn::F16>::load(captures[0], 0);
// CHECK-NEXT: const float v1 = v0;
// CHECK-NEXT: const long long v2 = attn::scoremod::Capture<long long>::load(captures[1], attn::scoremod::clampIndex(b, 2LL) * 15LL + attn::scoremod::clampIndex(h, 3LL) * 5LL + attn::scoremod::clampIndex(kv_idx, 5LL));
// CHECK-NEXT: const float v3 = attn::scoremod::sitofp(v2);
// CHECK-NEXT: const float v4 = (score * v1);
// CHECK-NEXT: const float v5 = (v4 + v3);
// CHECK-NEXT: return v5;
// CHECK-NEXT: }
func.func @scalar_and_rank4(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>, %flag: tensor<f16>, %big: tensor<2x3x1x5xi64>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%flag, %big : tensor<f16>, tensor<2x3x1x5xi64>) {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %flag_t: tensor<f16>, %big_t: tensor<2x3x1x5xi64>):
    %f16 = tensor.extract %flag_t[] : tensor<f16>
    %f = arith.extf %f16 : f16 to f32
    %n = tensor.extract %big_t[%b, %h, %i, %j] : tensor<2x3x1x5xi64>
    %nf = arith.sitofp %n : i64 to f32
    %s = arith.mulf %x, %f : f32
    %y = arith.addf %s, %nf : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}
