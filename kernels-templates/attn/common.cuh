// attn kernel templates: what every variant shares.
//
// The templates use no CUDA header (not even cuda_fp16.h) so NVRTC compiles
// them with nothing but the sources embedded in the attn library. Elements
// are 16-bit patterns; conversions and matrix products are inline PTX.
#pragma once

#include "attn/params.h"

namespace attn {

using u16 = unsigned short;
using u32 = unsigned int;

struct F16 {};
struct BF16 {};

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

__device__ __forceinline__ float negInf() { return __int_as_float(0xff800000u); }

__device__ __forceinline__ float fastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The f16 and bf16 forms of an instruction differ only in a type name.
#define ATTN_PACK_X2(TYPE)                                                     \
  asm("cvt.rn." TYPE "x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo))
#define ATTN_MMA_M16N8K16(TYPE)                                                \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE ".f32 "  \
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"         \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))

/// Per element type: packing two floats (`lo` in the low half), widening one
/// element, and the m16n8k16 product with f32 accumulators.
template <class E> struct ElementOps;

template <> struct ElementOps<F16> {
  static __device__ __forceinline__ u32 pack(float lo, float hi) {
    u32 d;
    ATTN_PACK_X2("f16");
    return d;
  }
  static __device__ __forceinline__ float toFloat(u16 x) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x));
    return f;
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const u32 (&a)[4],
                                             u32 b0, u32 b1) {
    ATTN_MMA_M16N8K16("f16");
  }
};

template <> struct ElementOps<BF16> {
  static __device__ __forceinline__ u32 pack(float lo, float hi) {
    u32 d;
    ATTN_PACK_X2("bf16");
    return d;
  }
  static __device__ __forceinline__ float toFloat(u16 x) {
    return __int_as_float(static_cast<u32>(x) << 16);
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const u32 (&a)[4],
                                             u32 b0, u32 b1) {
    ATTN_MMA_M16N8K16("bf16");
  }
};

#undef ATTN_PACK_X2
#undef ATTN_MMA_M16N8K16

/// Reads one bias element of type B as float.
template <class B> struct BiasOps;
template <> struct BiasOps<float> {
  static __device__ __forceinline__ float load(const void *p, i64 i) {
    return static_cast<const float *>(p)[i];
  }
};
template <> struct BiasOps<F16> {
  static __device__ __forceinline__ float load(const void *p, i64 i) {
    return ElementOps<F16>::toFloat(static_cast<const u16 *>(p)[i]);
  }
};
template <> struct BiasOps<BF16> {
  static __device__ __forceinline__ float load(const void *p, i64 i) {
    return ElementOps<BF16>::toFloat(static_cast<const u16 *>(p)[i]);
  }
};

__device__ __forceinline__ u32 sharedAddress(const void *p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

/// Copies 16 bytes global -> shared; only `bytes` (0..16) are read, the rest
/// is zero-filled.
__device__ __forceinline__ void copyAsync16(void *dst, const void *src,
                                            int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                   sharedAddress(dst)),
               "l"(src), "r"(bytes));
}
__device__ __forceinline__ void commitAsync() {
  asm volatile("cp.async.commit_group;");
}
template <int N> __device__ __forceinline__ void waitAsync() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}

/// ldmatrix from a 32-bit shared address: a per-thread base plus a
/// compile-time offset becomes one register and an immediate.
__device__ __forceinline__ void loadMatrixX4(u32 (&r)[4], u32 address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void loadMatrixX4Trans(u32 (&r)[4], u32 address) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(address));
}

} // namespace attn
