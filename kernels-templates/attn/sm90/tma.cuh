// sm_90 TMA and bulk-copy primitives as inline PTX (the templates use no
// CUDA header): tensor loads and stores, bulk reductions and their groups,
// the shared-memory accesses around them, and the warp roles of the kernels
// that issue them (register reallocation, one elected lane). The mbarriers
// TMA completes are pipeline.cuh's.
#pragma once
#include "attn/common.cuh"

namespace attn {

namespace sm90 {

/// Four 32-bit words of shared memory (16-byte aligned), by their
/// shared-window address.
__device__ __forceinline__ void storeShared4(u32 addr, int a, int b, int c,
                                             int d) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a),
               "r"(b), "r"(c), "r"(d)
               : "memory");
}
__device__ __forceinline__ void loadShared4(u32 addr, int &a, int &b, int &c,
                                            int &d) {
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "r"(addr)
               : "memory");
}
__device__ __forceinline__ void loadShared2(u32 addr, int &a, int &b) {
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
               : "=r"(a), "=r"(b)
               : "r"(addr)
               : "memory");
}

__device__ __forceinline__ void prefetchTensorMap(const TensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

/// Loads the box at coordinates (c0, c1, c2, c3) of a 4-d tensor map into
/// shared memory at dst; completes `bar` by the box's bytes.
__device__ __forceinline__ void tmaLoad4d(u32 dst, const TensorMap *map,
                                          u32 bar, int c0, int c1, int c2,
                                          int c3) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];" ::"r"(dst),
               "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}

/// The same for a 5-d tensor map.
__device__ __forceinline__ void tmaLoad5d(u32 dst, const TensorMap *map,
                                          u32 bar, int c0, int c1, int c2,
                                          int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(dst),
               "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}

/// Stores the shared box at src to coordinates (c0, c1, c2, c3) of a 4-d
/// tensor map (parts outside the tensor are not written), in the calling
/// thread's current bulk group.
__device__ __forceinline__ void tmaStore4d(const TensorMap *map, u32 src,
                                           int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group "
               "[%0, {%2, %3, %4, %5}], [%1];" ::"l"(map),
               "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}
/// Adds `bytes` (a multiple of 16) of f32 at the shared address src to
/// the global f32 at dst (16-byte aligned) in one bulk reduction, in the
/// calling thread's current bulk group.
__device__ __forceinline__ void bulkReduceAddF32(float *dst, u32 src,
                                                 u32 bytes) {
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 "
               "[%0], [%1], %2;" ::"l"(dst),
               "r"(src), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulkCommit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/// Waits until the calling thread's bulk stores have read their shared
/// sources (kRead) or are complete.
template <bool kRead> __device__ __forceinline__ void bulkWait() {
  if (kRead)
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  else
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
/// Makes this thread's shared-memory writes visible to TMA (the async
/// proxy).
__device__ __forceinline__ void fenceProxyAsyncShared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
/// Four f32 to shared memory (16-byte aligned).
__device__ __forceinline__ void storeShared4f(u32 addr, float a, float b,
                                              float c, float d) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(a),
               "f"(b), "f"(c), "f"(d)
               : "memory");
}
/// A 32-bit shared-memory store.
__device__ __forceinline__ void storeShared(u32 addr, u32 value) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(value) : "memory");
}

/// Warpgroup register reallocation: the producer gives registers back, the
/// consumers take them. Needs a register cap at entry (__launch_bounds__
/// with one block per SM), or ptxas ignores it (warning C7508).
template <int kRegisters> __device__ __forceinline__ void releaseRegisters() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters> __device__ __forceinline__ void claimRegisters() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

/// True in one lane of the warp.
__device__ __forceinline__ bool electOne() {
  u32 elected;
  asm volatile("{\n"
               ".reg .pred p;\n"
               "elect.sync _|p, 0xffffffff;\n"
               "selp.u32 %0, 1, 0, p;\n"
               "}"
               : "=r"(elected));
  return elected != 0;
}

} // namespace sm90
} // namespace attn
