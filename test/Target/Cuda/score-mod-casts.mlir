// RUN: attn-translate --attn-to-cuda %s | FileCheck %s

// Casts: sign- or zero-extension and truncation in one helper each
// (castsi/castui, the target type a template argument), so that an i1 true
// extends to -1 signed and 1 unsigned; sitofp of a true i1 is -1.0;
// float-to-integer conversions saturate; bitcast between i32 and f32.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const bool v0 = attn::scoremod::slt(q_idx, kv_idx);
// CHECK-NEXT: const int v1 = attn::scoremod::castsi<int>(v0);
// CHECK-NEXT: const long long v2 = attn::scoremod::castui<long long>(v0);
// CHECK-NEXT: const long long v3 = attn::scoremod::castsi<long long>(v1);
// CHECK-NEXT: const long long v4 = attn::scoremod::castui<long long>(v1);
// CHECK-NEXT: const int v5 = attn::scoremod::castui<int>(v3);
// CHECK-NEXT: const bool v6 = attn::scoremod::castui<bool>(v5);
// CHECK-NEXT: const long long v7 = attn::scoremod::castsi<long long>(v0);
// CHECK-NEXT: const int v8 = attn::scoremod::castsi<int>(v7);
// CHECK-NEXT: const long long v9 = attn::scoremod::castui<long long>(v5);
// CHECK-NEXT: const long long v10 = attn::scoremod::castui<long long>(v9);
// CHECK-NEXT: const float v11 = attn::scoremod::sitofp(v0);
// CHECK-NEXT: const float v12 = attn::scoremod::uitofp(v0);
// CHECK-NEXT: const float v13 = attn::scoremod::sitofp(v10);
// CHECK-NEXT: const float v14 = attn::scoremod::uitofp(v8);
// CHECK-NEXT: const int v15 = attn::scoremod::fptosi<int>(score);
// CHECK-NEXT: const long long v16 = attn::scoremod::fptoui<long long>(score);
// CHECK-NEXT: const bool v17 = attn::scoremod::fptosi<bool>(score);
// CHECK-NEXT: const int v18 = attn::scoremod::bitcast<int>(score);
// CHECK-NEXT: const float v19 = attn::scoremod::bitcast<float>(v18);
// CHECK-NEXT: const float v20 = (v11 + v12);
// CHECK-NEXT: const float v21 = (v20 + v13);
// CHECK-NEXT: const float v22 = (v21 + v14);
// CHECK-NEXT: const float v23 = (v22 + v19);
// CHECK-NEXT: const float v24 = (v6 ? v23 : score);
// CHECK-NEXT: return v24;
// CHECK-NEXT: }
func.func @cast_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %p = arith.cmpi slt, %i, %j : index
    %0 = arith.extsi %p : i1 to i32
    %1 = arith.extui %p : i1 to i64
    %2 = arith.extsi %0 : i32 to i64
    %3 = arith.extui %0 : i32 to i64
    %4 = arith.trunci %2 : i64 to i32
    %5 = arith.trunci %4 : i32 to i1
    %6 = arith.index_cast %p : i1 to index
    %7 = arith.index_cast %6 : index to i32
    %8 = arith.index_castui %4 : i32 to index
    %9 = arith.index_castui %8 : index to i64
    %f0 = arith.sitofp %p : i1 to f32
    %f1 = arith.uitofp %p : i1 to f32
    %f2 = arith.sitofp %9 : i64 to f32
    %f3 = arith.uitofp %7 : i32 to f32
    %10 = arith.fptosi %x : f32 to i32
    %11 = arith.fptoui %x : f32 to i64
    %12 = arith.fptosi %x : f32 to i1
    %13 = arith.bitcast %x : f32 to i32
    %f4 = arith.bitcast %13 : i32 to f32
    %s0 = arith.addf %f0, %f1 : f32
    %s1 = arith.addf %s0, %f2 : f32
    %s2 = arith.addf %s1, %f3 : f32
    %s3 = arith.addf %s2, %f4 : f32
    %y = arith.select %5, %s3, %x : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
