// RUN: attn-translate --attn-to-cuda %s | FileCheck %s

// Every integer op of arith (and math's) on i32, i64 and index becomes a
// helper of attn/score_mod.cuh, which defines what MLIR leaves undefined
// (division by zero, shifts past the width, MIN / -1); the *_extended ops
// define two values; i1 arithmetic runs on bools, mod 2.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const int v0 = attn::scoremod::castsi<int>(q_idx);
// CHECK-NEXT: const int v1 = attn::scoremod::castsi<int>(kv_idx);
// CHECK-NEXT: const long long v2 = attn::scoremod::castsi<long long>(q_idx);
// CHECK-NEXT: const int v3 = attn::scoremod::addi(v0, v1);
// CHECK-NEXT: const long long v4 = attn::scoremod::subi(v2, v2);
// CHECK-NEXT: const long long v5 = attn::scoremod::muli(q_idx, kv_idx);
// CHECK-NEXT: const int v6 = attn::scoremod::divsi(v0, v1);
// CHECK-NEXT: const long long v7 = attn::scoremod::divui(v2, v4);
// CHECK-NEXT: const long long v8 = attn::scoremod::ceildivsi(q_idx, kv_idx);
// CHECK-NEXT: const int v9 = attn::scoremod::ceildivui(v0, v1);
// CHECK-NEXT: const long long v10 = attn::scoremod::floordivsi(v2, v4);
// CHECK-NEXT: const long long v11 = attn::scoremod::remsi(q_idx, kv_idx);
// CHECK-NEXT: const int v12 = attn::scoremod::remui(v0, v1);
// CHECK-NEXT: const long long v13 = attn::scoremod::shli(v2, v4);
// CHECK-NEXT: const int v14 = attn::scoremod::shrsi(v0, v1);
// CHECK-NEXT: const long long v15 = attn::scoremod::shrui(q_idx, kv_idx);
// CHECK-NEXT: const int v16 = attn::scoremod::andi(v0, v1);
// CHECK-NEXT: const long long v17 = attn::scoremod::ori(v2, v4);
// CHECK-NEXT: const long long v18 = attn::scoremod::xori(q_idx, kv_idx);
// CHECK-NEXT: const int v19 = attn::scoremod::maxsi(v0, v1);
// CHECK-NEXT: const long long v20 = attn::scoremod::minsi(v2, v4);
// CHECK-NEXT: const long long v21 = attn::scoremod::maxui(q_idx, kv_idx);
// CHECK-NEXT: const int v22 = attn::scoremod::minui(v0, v1);
// CHECK-NEXT: const int v23 = attn::scoremod::addi(v0, v1);
// CHECK-NEXT: const bool v24 = attn::scoremod::addui_carry(v0, v1);
// CHECK-NEXT: const long long v25 = attn::scoremod::muli(v2, v4);
// CHECK-NEXT: const long long v26 = attn::scoremod::mulsi_high(v2, v4);
// CHECK-NEXT: const int v27 = attn::scoremod::muli(v0, v1);
// CHECK-NEXT: const int v28 = attn::scoremod::mului_high(v0, v1);
// CHECK-NEXT: const int v29 = attn::scoremod::absi(v0);
// CHECK-NEXT: const long long v30 = attn::scoremod::ctlz(v2);
// CHECK-NEXT: const int v31 = attn::scoremod::cttz(v0);
// CHECK-NEXT: const long long v32 = attn::scoremod::ctpop(v2);
// CHECK-NEXT: const bool v33 = (v0 == v1);
// CHECK-NEXT: const bool v34 = attn::scoremod::addi(v33, v24);
// CHECK-NEXT: const bool v35 = attn::scoremod::muli(v34, v33);
// CHECK-NEXT: const bool v36 = attn::scoremod::divsi(v35, v33);
// CHECK-NEXT: const float v37 = attn::scoremod::uitofp(v36);
// CHECK-NEXT: const float v38 = (score + v37);
// CHECK-NEXT: return v38;
// CHECK-NEXT: }
func.func @integer_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    // i32, i64 and index operands of every integer op.
    %a = arith.index_cast %i : index to i32
    %c = arith.index_cast %j : index to i32
    %w = arith.index_cast %i : index to i64
    %0 = arith.addi %a, %c : i32
    %1 = arith.subi %w, %w : i64
    %2 = arith.muli %i, %j : index
    %3 = arith.divsi %a, %c : i32
    %4 = arith.divui %w, %1 : i64
    %5 = arith.ceildivsi %i, %j : index
    %6 = arith.ceildivui %a, %c : i32
    %7 = arith.floordivsi %w, %1 : i64
    %8 = arith.remsi %i, %j : index
    %9 = arith.remui %a, %c : i32
    %10 = arith.shli %w, %1 : i64
    %11 = arith.shrsi %a, %c : i32
    %12 = arith.shrui %i, %j : index
    %13 = arith.andi %a, %c : i32
    %14 = arith.ori %w, %1 : i64
    %15 = arith.xori %i, %j : index
    %16 = arith.maxsi %a, %c : i32
    %17 = arith.minsi %w, %1 : i64
    %18 = arith.maxui %i, %j : index
    %19 = arith.minui %a, %c : i32
    %sum, %carry = arith.addui_extended %a, %c : i32, i1
    %lo, %hi = arith.mulsi_extended %w, %1 : i64
    %ulo, %uhi = arith.mului_extended %a, %c : i32
    %20 = math.absi %a : i32
    %21 = math.ctlz %w : i64
    %22 = math.cttz %a : i32
    %23 = math.ctpop %w : i64
    // i1 arithmetic is mod 2 on bools.
    %p = arith.cmpi eq, %a, %c : i32
    %24 = arith.addi %p, %carry : i1
    %25 = arith.muli %24, %p : i1
    %26 = arith.divsi %25, %p : i1
    %f = arith.uitofp %26 : i1 to f32
    %y = arith.addf %x, %f : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
