// The stage ring of the warp-specialized sm_90a kernels: shared buffers that
// a producer fills (by TMA, or by its own stores) and consumers read, each
// with a full mbarrier (the producer's arrival and the bytes it announced
// complete it) and an empty one (the consumers' arrivals complete it). A
// thread keeps its place in the ring in a PipelineState.
#pragma once
#include "attn/common.cuh"

namespace attn {

namespace sm90 {

__device__ __forceinline__ void barrierInit(u32 bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
/// Makes mbarrier initialization visible to the async proxy (TMA) and the
/// other threads (followed by a block-wide barrier).
__device__ __forceinline__ void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/// Arrives and announces `bytes` that TMA will complete on the barrier.
__device__ __forceinline__ void barrierExpectBytes(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void barrierArrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/// Waits until the phase of parity `phase` of the barrier has completed.
__device__ __forceinline__ void barrierWait(u32 bar, u32 phase) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "wait:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra wait;\n"
               "}" ::"r"(bar),
               "r"(phase)
               : "memory");
}

/// A thread's place in a ring of kStages buffers: the stage it uses next
/// and the parity of that use. Kept as one count of uses, not two fields:
/// registers are short on both sides. Count is the counter's type (the
/// backward's state is its signed step index).
template <int kStages, class Count = u32> struct PipelineState {
  Count count = 0;
  __device__ __forceinline__ int stage() const { return count % kStages; }
  __device__ __forceinline__ u32 phase() const { return (count / kStages) & 1; }
  __device__ __forceinline__ void advance() { ++count; }
};

/// The barriers of a ring of kStages buffers: the full barriers, then the
/// empty ones, 8 bytes each from the shared address `bars`. A fresh
/// barrier's wait for phase 1 passes, so the producer's first acquire of
/// each stage does not wait.
template <int kStages> struct StageRing {
  u32 bars;

  __device__ __forceinline__ u32 full(int s) const { return bars + 8 * s; }
  __device__ __forceinline__ u32 empty(int s) const {
    return bars + 8 * (kStages + s);
  }
  /// Stage s completes on `producers` arrivals (with the bytes they
  /// announce) and is free again on `consumers` arrivals.
  __device__ __forceinline__ void initStage(int s, int producers,
                                            int consumers) const {
    barrierInit(full(s), producers);
    barrierInit(empty(s), consumers);
  }
  __device__ __forceinline__ void init(int producers, int consumers) const {
    for (int s = 0; s < kStages; ++s)
      initStage(s, producers, consumers);
  }

  /// The producer: waits until the consumers released the stage's last use.
  template <class Count>
  __device__ __forceinline__ void
  acquire(const PipelineState<kStages, Count> &state) const {
    barrierWait(empty(state.stage()), state.phase() ^ 1);
  }
  /// The producer's arrival once its own stores filled the stage.
  template <class Count>
  __device__ __forceinline__ void
  commit(const PipelineState<kStages, Count> &state) const {
    barrierArrive(full(state.stage()));
  }
  /// The producer's arrival before the TMA loads that fill the stage: the
  /// stage completes when their `bytes` landed.
  template <class Count>
  __device__ __forceinline__ void
  commitBytes(const PipelineState<kStages, Count> &state, u32 bytes) const {
    barrierExpectBytes(full(state.stage()), bytes);
  }

  /// A consumer: waits until the stage is full.
  template <class Count>
  __device__ __forceinline__ void
  wait(const PipelineState<kStages, Count> &state) const {
    barrierWait(full(state.stage()), state.phase());
  }
  /// A consumer's arrival once it has read the stage.
  template <class Count>
  __device__ __forceinline__ void
  release(const PipelineState<kStages, Count> &state) const {
    barrierArrive(empty(state.stage()));
  }
};

} // namespace sm90
} // namespace attn
