// The producer warpgroup of the warp-specialized forward (flash_fwd_ws.cuh):
// a scheduler warp that picks the block's work tiles, and two loading
// threads, one for Q and K and one for V, that fill the rings of
// tile_slots.cuh by TMA.
//
// Work tiles: the scheduler's elected thread draws them (the block's
// first, then the next of a global counter, FlashParams::tile_counter, or
// without one every gridDim.x-th), decodes each and hands it to the loading
// threads and the consumers through a ring of two shared slots, so the next
// tile is known while the last one's output is stored; a tile with end -1
// stops everyone. (The loading threads keep only their own rings: within
// the producer's 24 registers more would spill.)
//
// Decode with GQA (C::kPackGroup = G > 1): a launch head is a K/V head and
// its rows are token-major (token, query head) pairs (mask.cuh); Q is one
// 5-d box of kBlockM / G tokens by the G heads, which lands in that order.
//
// Paged caches (C::kPaged): K and V tiles are boxes of a page each, the
// loading warps' lanes reading the block table in parallel (load).
#pragma once
#include "attn/sm90/tile_slots.cuh"

namespace attn {
namespace sm90 {

template <class C> struct FwdWsProducer {
  using Shape = FwdWsShape<C>;
  using Slots = TileSlots<C>;

  static __device__ __forceinline__ ScheduledTile tileAt(const FlashParams &p,
                                                         int index) {
    constexpr int kBlockM = Shape::kBlockM, kBlockN = Shape::kBlockN;
    const WorkTile w = p.schedule.template tile<Shape::kOrder>(index);
    ScheduledTile t{};
    t.b = w.b;
    t.h = w.h;
    // Packed rows: the launch head is the K/V head.
    t.hk = C::kPackGroup > 1 ? w.h : w.h / (p.heads_q / p.heads_kv);
    t.m0 = w.mBlock * kBlockM;
    t.split = w.split;
    Mask<C>(p, w.b, w.h, t.m0, kBlockM)
        .keyTiles(p, kBlockN, w.split, p.schedule.splits, t.begin, t.end);
    return t;
  }

  /// The scheduler warp's elected thread: publishes the block's tiles, then
  /// an end marker. A tile is drawn once a slot is free, while the
  /// consumers start the one in the other slot: one tile ahead, so that
  /// its Q loads during the running tile, and no more, so that a block
  /// never holds a long tile that another block, free sooner, could run.
  static __device__ void schedule(const FlashParams &p, const Slots &smem) {
    typename Slots::SlotState slots;
    const int numTiles = static_cast<int>(p.schedule.numTiles());
    for (int index = blockIdx.x;; slots.advance()) {
      smem.tileRing.acquire(slots);
      // The next tile: from the counter, longest first across the grid (a
      // block that drew short tiles draws again sooner); or statically.
      if (slots.count > 0)
        index = p.tile_counter ? atomicAdd(p.tile_counter, 1) + gridDim.x
                               : index + gridDim.x;
      ScheduledTile t{};
      t.end = -1; // no more work
      if (index < numTiles)
        t = tileAt(p, index);
      smem.publishTile(slots, t);
      if (index >= numTiles)
        break;
    }
  }

  /// Lane `lane`'s page of key tile n of a paged cache: its table entry,
  /// clamped to the cache as the cp.async kernels clamp it (lanes past the
  /// tile's boxes: 0, unused). Keys past seq_kv (a last tile longer than the
  /// table's pages) read the sequence's last page again: finite, masked,
  /// and zeroed in V where a length cuts the tile (fwd_ws_mainloop.cuh's
  /// clearValuesPastKeys). Pages are a power of two keys
  /// (Kernel::tmaRejection): shifts, not divisions, and 32-bit table
  /// offsets (the host checks that they fit).
  static __device__ __forceinline__ int pageEntry(const FlashParams &p,
                                                  const ScheduledTile &t,
                                                  int n, int lane) {
    constexpr int kBlockN = Shape::kBlockN;
    const int shift = __ffs(p.page_size) - 1;
    const int boxRows = p.page_size < kBlockN ? p.page_size : kBlockN;
    if (lane * boxRows >= kBlockN)
      return 0;
    const int key = n * kBlockN + lane * boxRows;
    const int index = min(key >> shift, (p.seq_kv >> shift) - 1);
    return min(max(p.block_table[t.b * static_cast<int>(p.table_stride) + index],
                   0),
               p.num_pages - 1);
  }
  /// Lane `lane`'s box of key tile n: the rows of its page (`entry`), or
  /// the tile's rows of a page that holds several tiles.
  template <int kBlocks>
  static __device__ __forceinline__ void
  loadPagedBox(const FlashParams &p, const TensorMap *map, u32 full, u32 dst,
               const ScheduledTile &t, int n, int lane, int entry) {
    constexpr int kBlockN = Shape::kBlockN;
    const int boxRows = p.page_size < kBlockN ? p.page_size : kBlockN;
    if (lane * boxRows >= kBlockN)
      return;
    const int key = n * kBlockN + lane * boxRows;
#pragma unroll 1
    for (int j = 0; j < kBlocks; ++j)
      tmaLoad4d(dst + j * kBlockN * 128 + lane * boxRows * 128, map, full,
                64 * j, key & (p.page_size - 1), t.hk, entry);
  }

  /// The loading threads (one per warp, so that each holds only its own
  /// ring in the producer's few registers): Q and K (kLoadsV false), or V.
  /// Key tiles run from the last to the first (diagonal tiles first), the
  /// consumers' order.
  /// A paged cache (kPaged): the whole loading warp runs the loop, lane 0
  /// as the single thread does, and lane i also loads the key tile's i-th
  /// box, one page's rows (or, for pages larger than the tile, the tile's
  /// rows of its page): the table entries are read in parallel, one round
  /// trip per tile. The host picked boxes of min(page size, kBlockN) rows
  /// that tile the key tile (Kernel::tmaRejection), whole multiples of the
  /// 8-row swizzle pattern, so each box lands where a dense tile's rows do.
  template <bool kLoadsV>
  static __device__ void load(const FlashParams &p, const TmaMaps &maps,
                              const Slots &smem) {
    constexpr int kBlockM = Shape::kBlockM, kBlockN = Shape::kBlockN;
    const TensorMap *map = kLoadsV ? &maps.v : &maps.k;
    const int lane = threadIdx.x % 32;
    const bool leader = !C::kPaged || lane == 0;
    if (!kLoadsV && leader)
      prefetchTensorMap(&maps.q);
    if (leader)
      prefetchTensorMap(map);
    constexpr int kBlocks = kLoadsV ? Shape::kBlocksV : Shape::kBlocksQK;
    constexpr int kBytes = kLoadsV ? Slots::kBytesV : Slots::kBytesK;
    const u32 base = kLoadsV ? smem.v : smem.k;
    const StageRing<Shape::kStages> ring = kLoadsV ? smem.vRing : smem.kRing;
    typename Slots::KvState state;
    typename Slots::SlotState slots;
    for (;;) {
      const ScheduledTile t = smem.template nextTile<!C::kPaged>(slots);
      if constexpr (C::kPaged) {
        // Every lane has read the slot before lane 0 frees it.
        __syncwarp();
        if (leader)
          smem.tileRing.release(slots);
        slots.advance();
      }
      if (t.end < 0)
        break;
      if (!kLoadsV && leader) {
        // One Q per tile, in the buffers' ring by the count of tiles taken
        // (the slots' count, already advanced past this one). A buffer is
        // free once every consumer finished its last S there.
        const typename Slots::QState q{slots.count - 1};
        smem.qRing.acquire(q);
        smem.qRing.commitBytes(q, Slots::kBytesQ);
        // Rolled loops: unrolled, ptxas keeps every block's address live
        // and spills within the producer's 24 registers.
#pragma unroll 1
        for (int j = 0; j < Shape::kBlocksQK; ++j) {
          const u32 dst = smem.qBuffer(q.stage()) + j * kBlockM * 128;
          // Packed rows (token-major (token, head) pairs): one box of
          // kBlockM / G tokens by the G query heads of K/V head t.h.
          if (C::kPackGroup > 1)
            tmaLoad5d(dst, &maps.q, smem.qRing.full(q.stage()), 64 * j, 0,
                      t.m0 / C::kPackGroup, t.h, t.b);
          else
            tmaLoad4d(dst, &maps.q, smem.qRing.full(q.stage()), 64 * j, t.m0,
                      t.h, t.b);
        }
      }
      // A paged cache's table entries one key tile ahead: each lookup's
      // round trip overlaps the wait for the next free stage.
      int entry =
          C::kPaged && t.end > t.begin ? pageEntry(p, t, t.end - 1, lane) : 0;
      for (int n = t.end - 1; n >= t.begin; --n) {
        const u32 full = ring.full(state.stage());
        ring.acquire(state);
        if (leader)
          ring.commitBytes(state, kBytes);
        const u32 dst = base + state.stage() * kBytes;
        if constexpr (C::kPaged) {
          const int next = n > t.begin ? pageEntry(p, t, n - 1, lane) : 0;
          __syncwarp(); // the expected bytes before any box lands
          loadPagedBox<kBlocks>(p, map, full, dst, t, n, lane, entry);
          entry = next;
        } else {
#pragma unroll 1
          for (int j = 0; j < kBlocks; ++j)
            tmaLoad4d(dst + j * kBlockN * 128, map, full, 64 * j, n * kBlockN,
                      t.hk, t.b);
        }
        state.advance();
      }
    }
  }
};

} // namespace sm90
} // namespace attn
