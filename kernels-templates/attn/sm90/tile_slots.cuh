// Where the warp-specialized forward (flash_fwd_ws.cuh) keeps its data in
// shared memory, in one place: the Q, K, V and staged O tiles, the barriers
// of their rings, and the slots through which the scheduler hands work
// tiles to the loading threads and the consumers.
//
// From a 1024-byte aligned start, every tile in 128-byte-swizzled blocks of
// 64 columns (as TMA writes them and wgmma reads them): Q (two buffers
// where they fit, so that the next tile's Q loads during this tile),
// kStages K and V stages, the staged output where it fits, then the
// barriers and the work-tile slots.
#pragma once
#include "attn/sm90/fwd_ws_shape.cuh"
#include "attn/sm90/pipeline.cuh"
#include "attn/sm90/tma.cuh"

namespace attn {
namespace sm90 {

/// A work tile's coordinates and its key tiles [begin, end), as its slot
/// holds it; end -1: no more work.
struct ScheduledTile {
  int b, h, hk, m0, begin, end; // what the loading thread reads
  int split, unused;
};

template <class C> struct TileSlots {
  using Shape = FwdWsShape<C>;
  static constexpr int kBytesQ = Shape::kBlockM * 128 * Shape::kBlocksQK;
  static constexpr int kBytesK = Shape::kBlockN * 128 * Shape::kBlocksQK;
  static constexpr int kBytesV = Shape::kBlockN * 128 * Shape::kBlocksV;
  // Work-tile slots between producer and consumers.
  static constexpr int kTileSlots = 2;
  static constexpr int kSlotBytes = 32; // a ScheduledTile
  // What shared memory holds beyond one Q buffer, the rings and the staged
  // output: the barriers (full and empty per Q buffer, per K stage, per V
  // stage and per slot) and the slots after them, 16-byte aligned for
  // vector accesses.
  static constexpr int barrierCount(int qBuffers) {
    return 2 * qBuffers + 4 * Shape::kStages + 2 * kTileSlots;
  }
  static constexpr int slotsOffset(int qBuffers) {
    return (8 * barrierCount(qBuffers) + 15) / 16 * 16;
  }
  static constexpr int sharedBytes(int qBuffers, bool stagedOutput) {
    return 1024 + qBuffers * kBytesQ +
           Shape::kStages * (kBytesK + kBytesV) +
           (stagedOutput ? Shape::kBlockM * 128 * Shape::kBlocksV : 0) +
           slotsOffset(qBuffers) + kSlotBytes * kTileSlots;
  }
  // What fits beside the rings, first the output staged in shared memory
  // for a TMA store (swizzled like Q; otherwise each thread stores its
  // accumulators), then a second Q buffer, with one or two consumers
  // (within three consumers' 160 registers the buffer's address per tile
  // spills). KernelVariants.cpp's sm90wsShared decides the same.
  static constexpr int kBytesO = Shape::kBlockM * 128 * Shape::kBlocksV;
  static constexpr bool kStagesOutput = sharedBytes(1, true) <= kMaxSharedSm90;
  static constexpr int kQBuffers =
      Shape::kConsumers < 3 && sharedBytes(2, kStagesOutput) <= kMaxSharedSm90
          ? 2
          : 1;
  static constexpr int kSlotsOffset = slotsOffset(kQBuffers);
  // The Q buffers' barriers, before the K ring's.
  static constexpr int kRings = 16 * kQBuffers;
  static_assert(sizeof(ScheduledTile) == kSlotBytes,
                "a ScheduledTile fills a slot");

  using QState = PipelineState<kQBuffers>;
  using KvState = PipelineState<Shape::kStages>;
  using SlotState = PipelineState<kTileSlots>;

  /// Shared addresses of the tiles, and the barriers of their rings (Q
  /// buffers, K stages, V stages, work-tile slots).
  u32 q, k, v, o, bars;
  StageRing<kQBuffers> qRing;
  StageRing<Shape::kStages> kRing, vRing;
  StageRing<kTileSlots> tileRing;

  __device__ __forceinline__ explicit TileSlots(char *smem) {
    q = (sharedAddress(smem) + 1023) & ~1023u;
    k = q + kQBuffers * kBytesQ;
    v = k + Shape::kStages * kBytesK;
    o = v + Shape::kStages * kBytesV;
    bars = o + (kStagesOutput ? kBytesO : 0);
    qRing = {bars};
    kRing = {bars + kRings};
    vRing = {kRing.bars + 16 * Shape::kStages};
    tileRing = {vRing.bars + 16 * Shape::kStages};
  }
  __device__ __forceinline__ u32 qBuffer(int b) const { return q + b * kBytesQ; }
  __device__ __forceinline__ u32 tileSlot(int s) const {
    return bars + kSlotsOffset + kSlotBytes * s;
  }

  /// The scheduler: writes `t` into the slot it acquired and lets the
  /// readers have it.
  __device__ __forceinline__ void publishTile(const SlotState &slots,
                                              const ScheduledTile &t) const {
    const u32 slot = tileSlot(slots.stage());
    storeShared4(slot, t.b, t.h, t.hk, t.m0);
    storeShared4(slot + 16, t.begin, t.end, t.split, t.unused);
    tileRing.commit(slots);
  }
  /// The next tile of the loading threads and the consumers (all but its
  /// split). The loading threads release its slot at once; the consumers
  /// after its epilogue (releaseTile), so that they need not hold the
  /// split in registers through the mainloop.
  template <bool kRelease>
  __device__ __forceinline__ ScheduledTile nextTile(SlotState &slots) const {
    tileRing.wait(slots);
    const u32 slot = tileSlot(slots.stage());
    ScheduledTile t;
    loadShared4(slot, t.b, t.h, t.hk, t.m0);
    loadShared2(slot + 16, t.begin, t.end);
    if (kRelease)
      releaseTile(slots);
    return t;
  }
  __device__ __forceinline__ int splitOf(const SlotState &slots) const {
    int split, unused;
    loadShared2(tileSlot(slots.stage()) + 24, split, unused);
    return split;
  }
  __device__ __forceinline__ void releaseTile(SlotState &slots) const {
    tileRing.release(slots);
    slots.advance();
  }
};

} // namespace sm90
} // namespace attn
