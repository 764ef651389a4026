// RUN: attn-translate --attn-to-cuda %s | FileCheck %s

// Float arith ops are C operators or helpers (maximumf/minimumf propagate
// NaN, unlike fmaxf/fminf); math ops on f32 are CUDA's functions of the same
// name; classifications are helpers.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const float v0 = __int_as_float(0x3f000000u) /* 0.5 */;
// CHECK-NEXT: const float v1 = (score + v0);
// CHECK-NEXT: const float v2 = (v1 - score);
// CHECK-NEXT: const float v3 = (v2 * score);
// CHECK-NEXT: const float v4 = (v3 / score);
// CHECK-NEXT: const float v5 = fmodf(v4, score);
// CHECK-NEXT: const float v6 = (-v5);
// CHECK-NEXT: const float v7 = attn::scoremod::maximumf(v6, score);
// CHECK-NEXT: const float v8 = attn::scoremod::minimumf(v7, score);
// CHECK-NEXT: const float v9 = fmaxf(v8, score);
// CHECK-NEXT: const float v10 = fminf(v9, score);
// CHECK-NEXT: const float v11 = fabsf(v10);
// CHECK-NEXT: const float v12 = acosf(v11);
// CHECK-NEXT: const float v13 = acoshf(v12);
// CHECK-NEXT: const float v14 = asinf(v13);
// CHECK-NEXT: const float v15 = asinhf(v14);
// CHECK-NEXT: const float v16 = atanf(v15);
// CHECK-NEXT: const float v17 = atanhf(v16);
// CHECK-NEXT: const float v18 = atan2f(v17, score);
// CHECK-NEXT: const float v19 = cbrtf(v18);
// CHECK-NEXT: const float v20 = ceilf(v19);
// CHECK-NEXT: const float v21 = copysignf(v20, score);
// CHECK-NEXT: const float v22 = cosf(v21);
// CHECK-NEXT: const float v23 = coshf(v22);
// CHECK-NEXT: const float v24 = erff(v23);
// CHECK-NEXT: const float v25 = erfcf(v24);
// CHECK-NEXT: const float v26 = expf(v25);
// CHECK-NEXT: const float v27 = exp2f(v26);
// CHECK-NEXT: const float v28 = expm1f(v27);
// CHECK-NEXT: const float v29 = floorf(v28);
// CHECK-NEXT: const float v30 = fmaf(v29, score, v0);
// CHECK-NEXT: const float v31 = logf(v30);
// CHECK-NEXT: const float v32 = log10f(v31);
// CHECK-NEXT: const float v33 = log1pf(v32);
// CHECK-NEXT: const float v34 = log2f(v33);
// CHECK-NEXT: const float v35 = powf(v34, score);
// CHECK-NEXT: const float v36 = roundf(v35);
// CHECK-NEXT: const float v37 = rintf(v36);
// CHECK-NEXT: const float v38 = rsqrtf(v37);
// CHECK-NEXT: const float v39 = sinf(v38);
// CHECK-NEXT: const float v40 = sinhf(v39);
// CHECK-NEXT: const float v41 = sqrtf(v40);
// CHECK-NEXT: const float v42 = tanf(v41);
// CHECK-NEXT: const float v43 = tanhf(v42);
// CHECK-NEXT: const float v44 = truncf(v43);
// CHECK-NEXT: const bool v45 = attn::scoremod::isNaN(v44);
// CHECK-NEXT: const bool v46 = attn::scoremod::isInf(v44);
// CHECK-NEXT: const bool v47 = attn::scoremod::isFinite(v44);
// CHECK-NEXT: const bool v48 = attn::scoremod::isNormal(v44);
// CHECK-NEXT: const bool v49 = attn::scoremod::andi(v45, v46);
// CHECK-NEXT: const bool v50 = attn::scoremod::ori(v47, v48);
// CHECK-NEXT: const bool v51 = attn::scoremod::xori(v49, v50);
// CHECK-NEXT: const float v52 = (v51 ? v44 : score);
// CHECK-NEXT: return v52;
// CHECK-NEXT: }
func.func @float_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 0.5 : f32
    %0 = arith.addf %x, %c : f32
    %1 = arith.subf %0, %x : f32
    %2 = arith.mulf %1, %x : f32
    %3 = arith.divf %2, %x : f32
    %4 = arith.remf %3, %x : f32
    %5 = arith.negf %4 : f32
    %6 = arith.maximumf %5, %x : f32
    %7 = arith.minimumf %6, %x : f32
    %8 = arith.maxnumf %7, %x : f32
    %9 = arith.minnumf %8, %x : f32
    %10 = math.absf %9 : f32
    %11 = math.acos %10 : f32
    %12 = math.acosh %11 : f32
    %13 = math.asin %12 : f32
    %14 = math.asinh %13 : f32
    %15 = math.atan %14 : f32
    %16 = math.atanh %15 : f32
    %17 = math.atan2 %16, %x : f32
    %18 = math.cbrt %17 : f32
    %19 = math.ceil %18 : f32
    %20 = math.copysign %19, %x : f32
    %21 = math.cos %20 : f32
    %22 = math.cosh %21 : f32
    %23 = math.erf %22 : f32
    %24 = math.erfc %23 : f32
    %25 = math.exp %24 : f32
    %26 = math.exp2 %25 : f32
    %27 = math.expm1 %26 : f32
    %28 = math.floor %27 : f32
    %29 = math.fma %28, %x, %c : f32
    %30 = math.log %29 : f32
    %31 = math.log10 %30 : f32
    %32 = math.log1p %31 : f32
    %33 = math.log2 %32 : f32
    %34 = math.powf %33, %x : f32
    %35 = math.round %34 : f32
    %36 = math.roundeven %35 : f32
    %37 = math.rsqrt %36 : f32
    %38 = math.sin %37 : f32
    %39 = math.sinh %38 : f32
    %40 = math.sqrt %39 : f32
    %41 = math.tan %40 : f32
    %42 = math.tanh %41 : f32
    %43 = math.trunc %42 : f32
    %n = math.isnan %43 : f32
    %inf = math.isinf %43 : f32
    %f = math.isfinite %43 : f32
    %m = math.isnormal %43 : f32
    %a = arith.andi %n, %inf : i1
    %o = arith.ori %f, %m : i1
    %e = arith.xori %a, %o : i1
    %y = arith.select %e, %43, %x : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
