// wgmma (sm_90a): warpgroup matrix products with f32 accumulators, their
// shared-memory descriptors and the ordering they need.
//
// The accumulators of m64nNk16 are, per thread, d[N / 8][4] in the order of
// mma.sync's m16n8 C fragments (warp w of the warpgroup holds rows 16w..16w+15),
// so the softmax and epilogue code of the sm80 path applies unchanged.
#pragma once
#include "attn/common.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the sm90 kernel variant uses wgmma and needs the sm_90a target"
#endif

namespace attn {
namespace sm90 {

using u64 = unsigned long long;

/// Descriptor of a 128-byte-swizzled shared-memory operand (see
/// Swizzle128Layout): start address, the byte distances between 64-column
/// blocks (leading) and between 8-row groups (stride), swizzle mode 1.
__device__ __forceinline__ u64 sharedDescriptor(u32 address, u32 leadingBytes,
                                                u32 strideBytes) {
  return static_cast<u64>((address & 0x3FFFF) >> 4) |
         static_cast<u64>(leadingBytes >> 4) << 16 |
         static_cast<u64>(strideBytes >> 4) << 32 | 1ull << 62;
}

/// Orders register accesses before the wgmma that follows.
__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
/// Makes the compiler treat accumulators as written here, so that no read
/// of them moves above the wgmmaWait that precedes this.
template <int Rows>
__device__ __forceinline__ void fenceAccumulators(float (&d)[Rows][4]) {
#pragma unroll
  for (int i = 0; i < Rows; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      asm volatile("" : "+f"(d[i][e])::"memory");
}

/// Cross-proxy ordering: shared memory written by cp.async (the generic
/// proxy) is read by wgmma (the async proxy).
__device__ __forceinline__ void fenceSharedForAsyncProxy() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Operand lists of the accumulators: ATTN_REGS_n is "%0, ..., %(n - 1)" and
// ATTN_ACC_n the n operands d[i / 4][i % 4], for n = N / 2 accumulators of
// an m64nNk16 product (N a multiple of 16 up to 256).
#define ATTN_REGS_8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define ATTN_REGS_16 ATTN_REGS_8 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define ATTN_REGS_24 ATTN_REGS_16 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define ATTN_REGS_32 ATTN_REGS_24 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define ATTN_REGS_40 ATTN_REGS_32 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define ATTN_REGS_48 ATTN_REGS_40 ", %40, %41, %42, %43, %44, %45, %46, %47"
#define ATTN_REGS_56 ATTN_REGS_48 ", %48, %49, %50, %51, %52, %53, %54, %55"
#define ATTN_REGS_64 ATTN_REGS_56 ", %56, %57, %58, %59, %60, %61, %62, %63"
#define ATTN_REGS_72 ATTN_REGS_64 ", %64, %65, %66, %67, %68, %69, %70, %71"
#define ATTN_REGS_80 ATTN_REGS_72 ", %72, %73, %74, %75, %76, %77, %78, %79"
#define ATTN_REGS_88 ATTN_REGS_80 ", %80, %81, %82, %83, %84, %85, %86, %87"
#define ATTN_REGS_96 ATTN_REGS_88 ", %88, %89, %90, %91, %92, %93, %94, %95"
#define ATTN_REGS_104 ATTN_REGS_96 ", %96, %97, %98, %99, %100, %101, %102, %103"
#define ATTN_REGS_112 ATTN_REGS_104 ", %104, %105, %106, %107, %108, %109, %110, %111"
#define ATTN_REGS_120 ATTN_REGS_112 ", %112, %113, %114, %115, %116, %117, %118, %119"
#define ATTN_REGS_128 ATTN_REGS_120 ", %120, %121, %122, %123, %124, %125, %126, %127"
#define ATTN_ACC(i) "+f"(d[(i) / 4][(i) % 4])
#define ATTN_ACC8(i)                                                           \
  ATTN_ACC(i), ATTN_ACC(i + 1), ATTN_ACC(i + 2), ATTN_ACC(i + 3),              \
      ATTN_ACC(i + 4), ATTN_ACC(i + 5), ATTN_ACC(i + 6), ATTN_ACC(i + 7)
#define ATTN_ACC_8 ATTN_ACC8(0)
#define ATTN_ACC_16 ATTN_ACC_8, ATTN_ACC8(8)
#define ATTN_ACC_24 ATTN_ACC_16, ATTN_ACC8(16)
#define ATTN_ACC_32 ATTN_ACC_24, ATTN_ACC8(24)
#define ATTN_ACC_40 ATTN_ACC_32, ATTN_ACC8(32)
#define ATTN_ACC_48 ATTN_ACC_40, ATTN_ACC8(40)
#define ATTN_ACC_56 ATTN_ACC_48, ATTN_ACC8(48)
#define ATTN_ACC_64 ATTN_ACC_56, ATTN_ACC8(56)
#define ATTN_ACC_72 ATTN_ACC_64, ATTN_ACC8(64)
#define ATTN_ACC_80 ATTN_ACC_72, ATTN_ACC8(72)
#define ATTN_ACC_88 ATTN_ACC_80, ATTN_ACC8(80)
#define ATTN_ACC_96 ATTN_ACC_88, ATTN_ACC8(88)
#define ATTN_ACC_104 ATTN_ACC_96, ATTN_ACC8(96)
#define ATTN_ACC_112 ATTN_ACC_104, ATTN_ACC8(104)
#define ATTN_ACC_120 ATTN_ACC_112, ATTN_ACC8(112)
#define ATTN_ACC_128 ATTN_ACC_120, ATTN_ACC8(120)

/// d += A B for a 64 x N x 16 step. ss: A and B by descriptor, K-major, or
/// MN-major where kTransposeA / kTransposeB (rows of A and of B along K, as
/// the rs B operand); kScaleD = 0 overwrites d instead. rs: A from registers
/// (an m16k16 fragment per warp), B by descriptor, MN-major (rows of B along
/// K).
template <class E, int N> struct Wgmma;

// I is the operand number after the N/2 accumulators.
#define ATTN_DEFINE_WGMMA(TAG, TYPE, N, I, I1, I2, I3, I4, I5)                 \
  template <> struct Wgmma<TAG, N> {                                           \
    template <int kScaleD, int kTransposeA = 0, int kTransposeB = kTransposeA> \
    static __device__ __forceinline__ void ss(float (&d)[N / 8][4], u64 a,     \
                                              u64 b) {                         \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #I2 ", 0;\n"           \
                   "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE      \
                   "." TYPE " {" ATTN_REGS_##I "}, %" #I ", %" #I1             \
                   ", p, 1, 1, %" #I3 ", %" #I4 ";\n}"                          \
                   : ATTN_ACC_##I                                              \
                   : "l"(a), "l"(b), "n"(kScaleD), "n"(kTransposeA),           \
                     "n"(kTransposeB));                                        \
    }                                                                          \
    static __device__ __forceinline__ void rs(float (&d)[N / 8][4],            \
                                              const u32 (&a)[4], u64 b) {      \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #I5 ", 0;\n"           \
                   "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE      \
                   "." TYPE " {" ATTN_REGS_##I "}, {%" #I ", %" #I1 ", %" #I2  \
                   ", %" #I3 "}, %" #I4 ", p, 1, 1, 1;\n}"                     \
                   : ATTN_ACC_##I                                              \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b),       \
                     "n"(1));                                                  \
    }                                                                          \
  };
#define ATTN_DEFINE_WGMMA_TYPES(N, I, I1, I2, I3, I4, I5)                      \
  ATTN_DEFINE_WGMMA(F16, "f16", N, I, I1, I2, I3, I4, I5)                      \
  ATTN_DEFINE_WGMMA(BF16, "bf16", N, I, I1, I2, I3, I4, I5)

ATTN_DEFINE_WGMMA_TYPES(16, 8, 9, 10, 11, 12, 13)
ATTN_DEFINE_WGMMA_TYPES(32, 16, 17, 18, 19, 20, 21)
ATTN_DEFINE_WGMMA_TYPES(48, 24, 25, 26, 27, 28, 29)
ATTN_DEFINE_WGMMA_TYPES(64, 32, 33, 34, 35, 36, 37)
ATTN_DEFINE_WGMMA_TYPES(80, 40, 41, 42, 43, 44, 45)
ATTN_DEFINE_WGMMA_TYPES(96, 48, 49, 50, 51, 52, 53)
ATTN_DEFINE_WGMMA_TYPES(112, 56, 57, 58, 59, 60, 61)
ATTN_DEFINE_WGMMA_TYPES(128, 64, 65, 66, 67, 68, 69)
ATTN_DEFINE_WGMMA_TYPES(144, 72, 73, 74, 75, 76, 77)
ATTN_DEFINE_WGMMA_TYPES(160, 80, 81, 82, 83, 84, 85)
ATTN_DEFINE_WGMMA_TYPES(176, 88, 89, 90, 91, 92, 93)
ATTN_DEFINE_WGMMA_TYPES(192, 96, 97, 98, 99, 100, 101)
ATTN_DEFINE_WGMMA_TYPES(208, 104, 105, 106, 107, 108, 109)
ATTN_DEFINE_WGMMA_TYPES(224, 112, 113, 114, 115, 116, 117)
ATTN_DEFINE_WGMMA_TYPES(240, 120, 121, 122, 123, 124, 125)
ATTN_DEFINE_WGMMA_TYPES(256, 128, 129, 130, 131, 132, 133)

#undef ATTN_DEFINE_WGMMA_TYPES
#undef ATTN_DEFINE_WGMMA
#undef ATTN_ACC_8
#undef ATTN_ACC_16
#undef ATTN_ACC_24
#undef ATTN_ACC_32
#undef ATTN_ACC_40
#undef ATTN_ACC_48
#undef ATTN_ACC_56
#undef ATTN_ACC_64
#undef ATTN_ACC_72
#undef ATTN_ACC_80
#undef ATTN_ACC_88
#undef ATTN_ACC_96
#undef ATTN_ACC_104
#undef ATTN_ACC_112
#undef ATTN_ACC_120
#undef ATTN_ACC_128
#undef ATTN_ACC8
#undef ATTN_ACC
#undef ATTN_REGS_8
#undef ATTN_REGS_16
#undef ATTN_REGS_24
#undef ATTN_REGS_32
#undef ATTN_REGS_40
#undef ATTN_REGS_48
#undef ATTN_REGS_56
#undef ATTN_REGS_64
#undef ATTN_REGS_72
#undef ATTN_REGS_80
#undef ATTN_REGS_88
#undef ATTN_REGS_96
#undef ATTN_REGS_104
#undef ATTN_REGS_112
#undef ATTN_REGS_120
#undef ATTN_REGS_128

} // namespace sm90
} // namespace attn
