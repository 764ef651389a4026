// Named barriers between the warpgroups of a warp-specialized sm_90a block,
// and the turns its consumer warpgroups take on the tensor cores.
#pragma once
#include "attn/common.cuh"

namespace attn {

namespace sm90 {

/// Barrier `id` of the block's 16 (id 0 is __syncthreads) where `threads`
/// threads meet, some by waiting (sync), some only by arriving.
struct NamedBarrier {
  int id, threads;

  __device__ __forceinline__ void sync() const {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
  }
  __device__ __forceinline__ void arrive() const {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
  }
};

/// Ping-pong between kWarpgroups consumer warpgroups (barriers kFirstId ..
/// kFirstId + kWarpgroups - 1): warpgroup w issues its products after
/// warpgroup w - 1 issued its own, then lets w + 1 go, so that one
/// warpgroup's softmax runs while the tensor cores work on another's
/// products. One warpgroup takes no turns.
template <int kWarpgroups, int kFirstId> struct WarpgroupTurns {
  int w; // the calling thread's warpgroup

  /// Before the first turn: the last warpgroup lets the first go.
  __device__ __forceinline__ void open() const {
    if (kWarpgroups > 1 && w == kWarpgroups - 1)
      NamedBarrier{kFirstId, 256}.arrive();
  }
  __device__ __forceinline__ void wait() const {
    if (kWarpgroups > 1)
      NamedBarrier{kFirstId + w, 256}.sync();
  }
  __device__ __forceinline__ void pass() const {
    if (kWarpgroups > 1)
      NamedBarrier{kFirstId + (w + 1) % kWarpgroups, 256}.arrive();
  }
  /// After the last turn: the first warpgroup takes the turn the last one
  /// passed, so that no arrival is left on a barrier.
  __device__ __forceinline__ void close() const {
    if (kWarpgroups > 1 && w == 0)
      NamedBarrier{kFirstId, 256}.sync();
  }
};

} // namespace sm90
} // namespace attn
