// RUN: attn-translate --attn-to-cuda %s | FileCheck %s

// Comparisons: every cmpi predicate, signed ones through slt (a true i1 is
// -1), unsigned ones through ult; every cmpf predicate, unordered ones true
// on NaN; select.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const int v0 = attn::scoremod::castsi<int>(q_idx);
// CHECK-NEXT: const int v1 = attn::scoremod::castsi<int>(kv_idx);
// CHECK-NEXT: const bool v2 = (v0 == v1);
// CHECK-NEXT: const bool v3 = (q_idx != kv_idx);
// CHECK-NEXT: const bool v4 = attn::scoremod::slt(v0, v1);
// CHECK-NEXT: const bool v5 = !attn::scoremod::slt(v1, v0);
// CHECK-NEXT: const bool v6 = attn::scoremod::slt(v1, v0);
// CHECK-NEXT: const bool v7 = !attn::scoremod::slt(v0, v1);
// CHECK-NEXT: const bool v8 = attn::scoremod::ult(v0, v1);
// CHECK-NEXT: const bool v9 = !attn::scoremod::ult(v1, v0);
// CHECK-NEXT: const bool v10 = attn::scoremod::ult(v1, v0);
// CHECK-NEXT: const bool v11 = !attn::scoremod::ult(v0, v1);
// CHECK-NEXT: const bool v12 = attn::scoremod::slt(v2, v3);
// CHECK-NEXT: const bool v13 = attn::scoremod::ult(v4, v5);
// CHECK-NEXT: const float v14 = __int_as_float(0x00000000u) /* 0 */;
// CHECK-NEXT: const bool v15 = false;
// CHECK-NEXT: const bool v16 = (score == v14);
// CHECK-NEXT: const bool v17 = (score > v14);
// CHECK-NEXT: const bool v18 = (score >= v14);
// CHECK-NEXT: const bool v19 = (score < v14);
// CHECK-NEXT: const bool v20 = (score <= v14);
// CHECK-NEXT: const bool v21 = (score < v14 || score > v14);
// CHECK-NEXT: const bool v22 = (score == score && v14 == v14);
// CHECK-NEXT: const bool v23 = !(score < v14 || score > v14);
// CHECK-NEXT: const bool v24 = !(score <= v14);
// CHECK-NEXT: const bool v25 = !(score < v14);
// CHECK-NEXT: const bool v26 = !(score >= v14);
// CHECK-NEXT: const bool v27 = !(score > v14);
// CHECK-NEXT: const bool v28 = (score != v14);
// CHECK-NEXT: const bool v29 = (score != score || v14 != v14);
// CHECK-NEXT: const bool v30 = true;
// CHECK-NEXT: const bool v31 = (v30 ? v12 : v13);
// CHECK-NEXT: const int v32 = (v31 ? v0 : v1);
// CHECK-NEXT: const float v33 = attn::scoremod::sitofp(v32);
// CHECK-NEXT: const float v34 = (v29 ? v33 : score);
// CHECK-NEXT: return v34;
// CHECK-NEXT: }
func.func @compare_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %a = arith.index_cast %i : index to i32
    %c = arith.index_cast %j : index to i32
    %0 = arith.cmpi eq, %a, %c : i32
    %1 = arith.cmpi ne, %i, %j : index
    %2 = arith.cmpi slt, %a, %c : i32
    %3 = arith.cmpi sle, %a, %c : i32
    %4 = arith.cmpi sgt, %a, %c : i32
    %5 = arith.cmpi sge, %a, %c : i32
    %6 = arith.cmpi ult, %a, %c : i32
    %7 = arith.cmpi ule, %a, %c : i32
    %8 = arith.cmpi ugt, %a, %c : i32
    %9 = arith.cmpi uge, %a, %c : i32
    %10 = arith.cmpi slt, %0, %1 : i1
    %11 = arith.cmpi ult, %2, %3 : i1
    %z = arith.constant 0.0 : f32
    %f0 = arith.cmpf false, %x, %z : f32
    %f1 = arith.cmpf oeq, %x, %z : f32
    %f2 = arith.cmpf ogt, %x, %z : f32
    %f3 = arith.cmpf oge, %x, %z : f32
    %f4 = arith.cmpf olt, %x, %z : f32
    %f5 = arith.cmpf ole, %x, %z : f32
    %f6 = arith.cmpf one, %x, %z : f32
    %f7 = arith.cmpf ord, %x, %z : f32
    %f8 = arith.cmpf ueq, %x, %z : f32
    %f9 = arith.cmpf ugt, %x, %z : f32
    %f10 = arith.cmpf uge, %x, %z : f32
    %f11 = arith.cmpf ult, %x, %z : f32
    %f12 = arith.cmpf ule, %x, %z : f32
    %f13 = arith.cmpf une, %x, %z : f32
    %f14 = arith.cmpf uno, %x, %z : f32
    %f15 = arith.cmpf true, %x, %z : f32
    %s = arith.select %f15, %10, %11 : i1
    %t = arith.select %s, %a, %c : i32
    %y0 = arith.sitofp %t : i32 to f32
    %y = arith.select %f14, %y0, %x : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
