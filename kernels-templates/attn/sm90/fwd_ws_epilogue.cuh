// The epilogue of the warp-specialized forward's consumers
// (flash_fwd_ws.cuh): a work tile's output and logsumexp, through shared
// memory and a TMA store where the output is staged (tile_slots.cuh), or
// by each thread's own stores (epilogue.cuh, which also writes split-KV
// partials).
#pragma once
#include "attn/epilogue.cuh"
#include "attn/sm90/tile_slots.cuh"

namespace attn {
namespace sm90 {

template <class C> struct FwdWsEpilogue {
  using Shape = FwdWsShape<C>;
  using Slots = TileSlots<C>;
  using Ops = typename Shape::Ops;
  using Output = float[1][Shape::kOTiles][4];
  using Stats = OnlineSoftmax<1, Shape::kNTiles>;

  /// The output of consumer w's 64 rows through its part of the staging
  /// buffer: normalized and packed into 64-column blocks of 128-byte
  /// swizzled rows (the layout of the tensor map), then stored by TMA,
  /// which drops rows past seq_q and columns past the head dim. The
  /// logsumexp is stored directly.
  static __device__ void storeStaged(const FlashParams &p, const TmaMaps &maps,
                                     const Slots &smem, const ScheduledTile &t,
                                     int w, const Output &o,
                                     const Stats &stats) {
    const int lane = threadIdx.x % 32;
    const bool leader = threadIdx.x % 128 == 0;
    const u32 base = smem.o + w * (64 * 128 * Shape::kBlocksV);
    const NamedBarrier staged{Shape::kOutputBarrier + w, 128};
    // The previous tile's store has read the buffer before it is rewritten.
    if (leader)
      bulkWait</*kRead=*/true>();
    staged.sync();
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      // Row r of the consumer's 64; the accumulators' layout of wgmma.
      const int r = 16 * (threadIdx.x / 32 % 4) + lane / 4 + half * 8;
      const int row = t.m0 + 64 * w + r;
      float inv, lse;
      Epilogue<C>::rowScale(p, stats, 0, half, t.h, t.h, row, row < p.seq_q,
                            /*partial=*/false, inv, lse);
#pragma unroll
      for (int d = 0; d < Shape::kOTiles; ++d) {
        const int byte = (d * 8 + (lane % 4) * 2) * 2; // in the row
        const int block = byte / 128, chunk = byte % 128 / 16;
        storeShared(base + block * (64 * 128) + r * 128 +
                        ((chunk ^ (r % 8)) * 16) + byte % 16,
                    Ops::pack(o[0][d][2 * half] * inv,
                              o[0][d][2 * half + 1] * inv));
      }
      if (C::kWriteLse && lane % 4 == 0 && row < p.seq_q)
        p.lse[(static_cast<i64>(t.b) * p.heads_q + t.h) * p.seq_q + row] = lse;
    }
    fenceProxyAsyncShared();
    staged.sync();
    if (leader) {
#pragma unroll 1
      for (int j = 0; j < Shape::kBlocksV; ++j)
        tmaStore4d(&maps.o, base + j * (64 * 128), 64 * j, t.m0 + 64 * w, t.h,
                   t.b);
      bulkCommit();
    }
  }

  /// Consumer w's rows of work tile t (rows from rowBase in the thread's
  /// warp): staged where the launch allows a TMA store of whole tiles (no
  /// packed rows, ragged batch or split), else by epilogue.cuh.
  static __device__ __forceinline__ void
  store(const FlashParams &p, const TmaMaps &maps, const Slots &smem,
        const ScheduledTile &t, int w, int rowBase, int split, const Output &o,
        const Stats &stats) {
    if (Slots::kStagesOutput && C::kPackGroup == 1 && !C::kVarlen &&
        p.schedule.splits == 1 && maps.stages_output)
      storeStaged(p, maps, smem, t, w, o, stats);
    else
      Epilogue<C>::store(p, t.b, t.h, t.m0, rowBase, split, o, stats);
  }

  /// After the last tile: TMA has read the staged output before the block's
  /// shared memory goes.
  static __device__ __forceinline__ void finish(bool leader) {
    if (Slots::kStagesOutput && leader)
      bulkWait</*kRead=*/true>();
  }
};

} // namespace sm90
} // namespace attn
