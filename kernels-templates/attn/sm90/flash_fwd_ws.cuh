// Forward flash attention for sm_90a, warp-specialized and persistent:
// one block per SM loops over work tiles (tile_scheduler.h). Warpgroup 0 is
// the producer: one thread loads Q and K, another V, with TMA into shared
// memory, and the loads complete on mbarriers (a full and an empty barrier
// per stage, K and V in rings of their own, so S = Q K^T can start before V
// lands). The other kConsumers warpgroups each own 64 query rows of the tile
// and run the cp.async kernel's schedule on wgmma: step i issues S_i = Q K_i^T and
// O += P_{i-1} V_{i-1} together and runs the softmax of S_i while the
// second product is in flight. Between consumers, named barriers take turns
// issuing products (ping-pong), so one warpgroup's softmax runs while the
// tensor cores work on another's products.
//
// Work tiles: a scheduler warp of the producer warpgroup picks them (the
// block's first, then the next of a global counter, FlashParams::
// tile_counter, or without one every gridDim.x-th), decodes each and hands
// it to the loading threads and the consumers through a ring of two shared
// slots, so the next tile is known while the last one's output is stored;
// a tile with end -1 stops everyone. (The loading threads keep only their
// own rings: within the producer's 24 registers more would spill.)
//
// Shared memory (1024-byte aligned, every tile in 128-byte-swizzled blocks
// of 64 columns, as TMA writes them and wgmma reads them): Q (two buffers
// where they fit, so that the next tile's Q loads during this tile), kStages
// K and V stages, the staged output where it fits, then the barriers and the
// tile slots. Mask, softmax and epilogue are the shared components; tiles
// past seq_q / seq_kv read as zeros (TMA fills them).
//
// Decode with GQA (C::kPackGroup = G > 1): a launch head is a K/V head and
// its rows are token-major (token, query head) pairs (mask.cuh); Q is one
// 5-d box of kBlockM / G tokens by the G heads, which lands in that order.
//
// Paged caches (C::kPaged): K and V tiles are boxes of a page each, the
// loading warps' lanes reading the block table in parallel (produce).
//
// The configuration C is the cp.async kernel's (see flash_fwd.cuh), with
// kNumWarps = 4 * (kConsumers + 1) and kBlockM = 64 * kConsumers.
#pragma once
#include "attn/epilogue.cuh"
#include "attn/mask.cuh"
#include "attn/sm90/named_barrier.cuh"
#include "attn/sm90/pipeline.cuh"
#include "attn/sm90/tma.cuh"
#include "attn/sm90/wgmma.cuh"
#include "attn/softmax.cuh"

namespace attn {
namespace sm90 {

template <class C> struct FlashForwardWS {
  using Ops = ElementOps<typename C::Element>;
  static constexpr int kConsumers = C::kNumWarps / 4 - 1;
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kStages = C::kStages;
  static constexpr int kDimQK = C::kHeadDimQK, kDimV = C::kHeadDimV;
  // Head dims in 64-column swizzle blocks (the last may be partly padding,
  // which TMA fills with zeros).
  static constexpr int kBlocksQK = (kDimQK + 63) / 64;
  static constexpr int kBlocksV = (kDimV + 63) / 64;
  static constexpr int kBytesQ = kBlockM * 128 * kBlocksQK;
  static constexpr int kBytesK = kBlockN * 128 * kBlocksQK;
  static constexpr int kBytesV = kBlockN * 128 * kBlocksV;
  // Work-tile slots between producer and consumers.
  static constexpr int kTileSlots = 2;
  static constexpr int kSlotBytes = 32; // a Tile
  // What shared memory holds beyond one Q buffer, the rings and the staged
  // output: the barriers (qFull, qEmpty per Q buffer; kFull, kEmpty, vFull,
  // vEmpty per stage; tileFull, tileEmpty per slot) and the slots after
  // them, 16-byte aligned for vector accesses.
  static constexpr int barrierCount(int qBuffers) {
    return 2 * qBuffers + 4 * kStages + 2 * kTileSlots;
  }
  static constexpr int slotsOffset(int qBuffers) {
    return (8 * barrierCount(qBuffers) + 15) / 16 * 16;
  }
  static constexpr int sharedBytes(int qBuffers, bool stagedOutput) {
    return 1024 + qBuffers * kBytesQ + kStages * (kBytesK + kBytesV) +
           (stagedOutput ? kBlockM * 128 * kBlocksV : 0) +
           slotsOffset(qBuffers) + kSlotBytes * kTileSlots;
  }
  // What fits beside the rings, first the output staged in shared memory
  // for a TMA store (swizzled like Q; otherwise each thread stores its
  // accumulators), then a second Q buffer, with one or two consumers
  // (within three consumers' 160 registers the buffer's address per tile
  // spills). KernelVariants.cpp's sm90wsShared decides the same.
  static constexpr int kBytesO = kBlockM * 128 * kBlocksV;
  static constexpr bool kStagesOutput = sharedBytes(1, true) <= kMaxSharedSm90;
  static constexpr int kQBuffers =
      kConsumers < 3 && sharedBytes(2, kStagesOutput) <= kMaxSharedSm90 ? 2 : 1;
  static constexpr int kSlotsOffset = slotsOffset(kQBuffers);
  static constexpr int kSharedBytes = sharedBytes(kQBuffers, kStagesOutput);
  // Named barriers: 0 is __syncthreads, 1 + w the consumers' turns, then
  // one per consumer for its staged output.
  static constexpr int kOutputBarrier = 1 + kConsumers;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kOTiles = kDimV / 8;
  static constexpr TileOrder kOrder = tileOrderFor(Mask<C>::kPositional);
  // Registers per thread after reallocation: 128 producer threads and
  // 128 kConsumers consumer threads share what the launch gave the block
  // (65536 / kThreads each, rounded down to 8), or setmaxnreg.inc would
  // wait forever; one consumer needs no reallocation (KernelVariants.cpp's
  // register limits follow these).
  // A paged cache's loaders (loadPagedBox) need more than 24: two
  // consumers give up 8 each.
  static constexpr int kProducerRegisters =
      kConsumers == 2 ? (C::kPaged ? 40 : 24) : 32;
  static constexpr int kConsumerRegisters =
      kConsumers == 1 ? 255 : kConsumers == 2 ? (C::kPaged ? 232 : 240) : 160;

  static_assert(kConsumers >= 1 && kConsumers <= 3, "1 to 3 consumer warpgroups");
  static_assert(kBlockM == 64 * kConsumers, "each consumer owns 64 rows");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256 && kBlockM <= 256,
                "a TMA box and a wgmma N hold at most 256 rows");
  static_assert(kDimQK % 16 == 0 && kDimV % 16 == 0,
                "head dims are whole k16 steps");
  static_assert(!C::kTransposeK, "TMA tiles of K^T would need MN-major K");
  static_assert(kBlockM % C::kPackGroup == 0,
                "Q's box holds whole tokens of packed (token, head) rows");
  static_assert(kConsumers == 1 ||
                    128 * kProducerRegisters +
                            128 * kConsumers * kConsumerRegisters <=
                        kThreads * (65536 / kThreads / 8 * 8),
                "the registers the launch gives one block per SM");

  using Product = Wgmma<typename C::Element, kBlockN>;
  using Update = Wgmma<typename C::Element, kDimV>;

  /// Shared addresses of the tiles, and the barriers of their rings (Q
  /// buffers, K stages, V stages, work-tile slots).
  struct Layout {
    u32 q, k, v, o, bars;
    StageRing<kQBuffers> qRing;
    StageRing<kStages> kRing, vRing;
    StageRing<kTileSlots> tileRing;
    __device__ __forceinline__ explicit Layout(char *smem) {
      q = (sharedAddress(smem) + 1023) & ~1023u;
      k = q + kQBuffers * kBytesQ;
      v = k + kStages * kBytesK;
      o = v + kStages * kBytesV;
      bars = o + (kStagesOutput ? kBytesO : 0);
      qRing = {bars};
      kRing = {bars + kRings};
      vRing = {kRing.bars + 16 * kStages};
      tileRing = {vRing.bars + 16 * kStages};
    }
    __device__ __forceinline__ u32 qBuffer(int b) const { return q + b * kBytesQ; }
    static constexpr int kRings = 16 * kQBuffers; // after the Q barriers
    __device__ __forceinline__ u32 tileSlot(int s) const {
      return bars + kSlotsOffset + kSlotBytes * s;
    }
  };

  using KvState = PipelineState<kStages>;
  using QState = PipelineState<kQBuffers>;
  using SlotState = PipelineState<kTileSlots>;

  /// A work tile's coordinates and its key tiles [begin, end); end -1: no
  /// more work.
  struct Tile {
    int b, h, hk, m0, begin, end; // what the loading thread reads
    int split, unused;
  };
  static_assert(sizeof(Tile) == kSlotBytes, "a Tile fills a slot");
  static __device__ __forceinline__ Tile tileAt(const FlashParams &p,
                                                int index) {
    const WorkTile w = p.schedule.template tile<kOrder>(index);
    Tile t{};
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
  static __device__ __forceinline__ Mask<C> maskOf(const FlashParams &p,
                                                   const Tile &t) {
    return Mask<C>(p, t.b, t.h, t.m0, kBlockM);
  }

  /// The scheduler warp's elected thread: publishes the block's tiles, then
  /// an end marker. A tile is drawn once a slot is free, while the
  /// consumers start the one in the other slot: one tile ahead, so that
  /// its Q loads during the running tile, and no more, so that a block
  /// never holds a long tile that another block, free sooner, could run.
  static __device__ void schedule(const FlashParams &p, const Layout &smem) {
    SlotState slots;
    const int numTiles = static_cast<int>(p.schedule.numTiles());
    for (int index = blockIdx.x;; slots.advance()) {
      smem.tileRing.acquire(slots);
      // The next tile: from the counter, longest first across the grid (a
      // block that drew short tiles draws again sooner); or statically.
      if (slots.count > 0)
        index = p.tile_counter ? atomicAdd(p.tile_counter, 1) + gridDim.x
                               : index + gridDim.x;
      Tile t{};
      t.end = -1; // no more work
      if (index < numTiles)
        t = tileAt(p, index);
      const u32 slot = smem.tileSlot(slots.stage());
      storeShared4(slot, t.b, t.h, t.hk, t.m0);
      storeShared4(slot + 16, t.begin, t.end, t.split, t.unused);
      smem.tileRing.commit(slots);
      if (index >= numTiles)
        break;
    }
  }
  /// The next tile of the loading threads and the consumers (all but its
  /// split). The loading threads release its slot at once; the consumers
  /// after its epilogue (releaseTile), so that they need not hold the
  /// split in registers through the mainloop.
  template <bool kRelease>
  static __device__ __forceinline__ Tile nextTile(const Layout &smem,
                                                  SlotState &slots) {
    smem.tileRing.wait(slots);
    const u32 slot = smem.tileSlot(slots.stage());
    Tile t;
    loadShared4(slot, t.b, t.h, t.hk, t.m0);
    loadShared2(slot + 16, t.begin, t.end);
    if (kRelease)
      releaseTile(smem, slots);
    return t;
  }
  static __device__ __forceinline__ int splitOf(const Layout &smem,
                                                const SlotState &slots) {
    int split, unused;
    loadShared2(smem.tileSlot(slots.stage()) + 24, split, unused);
    return split;
  }
  static __device__ __forceinline__ void
  releaseTile(const Layout &smem, SlotState &slots) {
    smem.tileRing.release(slots);
    slots.advance();
  }

  /// Lane `lane`'s page of key tile n of a paged cache: its table entry,
  /// clamped to the cache as the cp.async kernels clamp it (lanes past the
  /// tile's boxes: 0, unused). Keys past seq_kv (a last tile longer than the
  /// table's pages) read the sequence's last page again: finite, masked,
  /// and zeroed in V where a length cuts the tile (clearValuesPastKeys).
  /// Pages are a power of two keys (Kernel::tmaRejection): shifts, not
  /// divisions, and 32-bit table offsets (the host checks that they fit).
  static __device__ __forceinline__ int pageEntry(const FlashParams &p,
                                                  const Tile &t, int n,
                                                  int lane) {
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
               const Tile &t, int n, int lane, int entry) {
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
  static __device__ void produce(const FlashParams &p, const TmaMaps &maps,
                                 const Layout &smem) {
    const TensorMap *map = kLoadsV ? &maps.v : &maps.k;
    const int lane = threadIdx.x % 32;
    const bool leader = !C::kPaged || lane == 0;
    if (!kLoadsV && leader)
      prefetchTensorMap(&maps.q);
    if (leader)
      prefetchTensorMap(map);
    constexpr int kBlocks = kLoadsV ? kBlocksV : kBlocksQK;
    constexpr int kBytes = kLoadsV ? kBytesV : kBytesK;
    const u32 base = kLoadsV ? smem.v : smem.k;
    const StageRing<kStages> ring = kLoadsV ? smem.vRing : smem.kRing;
    KvState state;
    SlotState slots;
    for (;;) {
      const Tile t = nextTile</*kRelease=*/!C::kPaged>(smem, slots);
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
        // free once every consumer finished its last S there (the first
        // wait on each passes: a fresh barrier's phase 1).
        const QState q{slots.count - 1};
        smem.qRing.acquire(q);
        smem.qRing.commitBytes(q, kBytesQ);
        // Rolled loops: unrolled, ptxas keeps every block's address live
        // and spills within the producer's 24 registers.
#pragma unroll 1
        for (int j = 0; j < kBlocksQK; ++j) {
          const u32 dst = smem.qBuffer(q.stage()) + j * kBlockM * 128;
          // Packed rows (token-major (token, head) pairs): one box of
          // kBlockM / G tokens by the G query heads of K/V head t.h.
          if (C::kPackGroup > 1)
            tmaLoad5d(dst, &maps.q, smem.qRing.full(q.stage()), 64 * j, 0,
                      t.m0 / C::kPackGroup, t.h, t.b);
          else
            tmaLoad4d(dst, &maps.q, smem.qRing.full(q.stage()), 64 * j, t.m0, t.h,
                      t.b);
        }
      }
      // A paged cache's table entries one key tile ahead: each lookup's
      // round trip overlaps the wait for the next free stage.
      int entry = C::kPaged && t.end > t.begin ? pageEntry(p, t, t.end - 1, lane) : 0;
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

  /// The consumers' turns at issuing products (barriers 1 + w).
  using Turns = WarpgroupTurns<kConsumers, 1>;

  /// The output of consumer w's 64 rows through its part of the staging
  /// buffer: normalized and packed into 64-column blocks of 128-byte
  /// swizzled rows (the layout of the tensor map), then stored by TMA,
  /// which drops rows past seq_q and columns past the head dim. The
  /// logsumexp is stored directly.
  static __device__ void storeStaged(const FlashParams &p, const TmaMaps &maps,
                                     const Layout &smem, const Tile &t, int w,
                                     const float (&o)[1][kOTiles][4],
                                     const OnlineSoftmax<1, kNTiles> &stats) {
    const int lane = threadIdx.x % 32;
    const bool leader = threadIdx.x % 128 == 0;
    const u32 base = smem.o + w * (64 * 128 * kBlocksV);
    // The previous tile's store has read the buffer before it is rewritten.
    if (leader)
      bulkWait</*kRead=*/true>();
    NamedBarrier{kOutputBarrier + w, 128}.sync();
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      // Row r of the consumer's 64; the accumulators' layout of wgmma.
      const int r = 16 * (threadIdx.x / 32 % 4) + lane / 4 + half * 8;
      const int row = t.m0 + 64 * w + r;
      float inv, lse;
      Epilogue<C>::rowScale(p, stats, 0, half, t.h, t.h, row, row < p.seq_q,
                            /*partial=*/false, inv, lse);
#pragma unroll
      for (int d = 0; d < kOTiles; ++d) {
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
    NamedBarrier{kOutputBarrier + w, 128}.sync();
    if (leader) {
#pragma unroll 1
      for (int j = 0; j < kBlocksV; ++j)
        tmaStore4d(&maps.o, base + j * (64 * 128), 64 * j, t.m0 + 64 * w, t.h,
                   t.b);
      bulkCommit();
    }
  }

  /// With key padding, the work tile's last key tile (its first step's,
  /// and the first update's V) may hold rows at or past the sequence's
  /// length, which TMA read from the cache (it fills only rows past the
  /// tensor): a masked key's weight is 0, but 0 * NaN is NaN where the cache
  /// holds NaN there (an uninitialized cache). Consumer 0 zeroes those V rows
  /// once the tile landed, while its S_0 runs: it issues every update before
  /// the other consumers (its turn comes first), and its own first one comes
  /// next step.
  /// (K's rows need nothing: their scores are replaced by -inf.)
  /// (A dense cache's rows past seq_kv are TMA's zeros already: nothing to
  /// do where the sequence's keys reach seq_kv. A paged cache's are rows of
  /// its last page: see loadPagedBox.)
  static __device__ __forceinline__ void
  clearValuesPastKeys(const Layout &smem, const KvState &vState, int lastTile,
                      int kvEnd, int seqKV) {
    const int keys = kvEnd - lastTile * kBlockN; // uniform
    // A paged cache's rows past seq_kv are a page's, not TMA's zeros.
    if (keys >= kBlockN || (!C::kPaged && kvEnd >= seqKV))
      return;
    smem.vRing.wait(vState);
    const u32 base = smem.v + vState.stage() * kBytesV;
    const int rows = kBlockN - max(keys, 0);
    for (int i = threadIdx.x % 128; i < kBlocksV * rows * 8; i += 128) {
      const int block = i / (rows * 8), j = i % (rows * 8);
      storeShared4(base + block * (kBlockN * 128) +
                       (kBlockN - rows + j / 8) * 128 + (j % 8) * 16,
                   0, 0, 0, 0);
    }
    // wgmma reads them through the async proxy; the other consumers, after
    // this one's turn.
    fenceProxyAsyncShared();
    NamedBarrier{kOutputBarrier, 128}.sync();
  }

  static __device__ void consume(const FlashParams &p, const TmaMaps &maps,
                                 const Layout &smem, int w) {
    const bool leader = threadIdx.x % 128 == 0; // releases buffers
    // The warpgroup's products cover its 64 rows; warp g of it holds the
    // accumulators of rows 16 g .. 16 g + 15 (what masks and the epilogue
    // index by).
    const int rowBase = 64 * w + 16 * (threadIdx.x / 32 % 4);
    const Turns turns{w};
    KvState kState, vState;
    SlotState slots;
    turns.open();
    for (;;) {
      const Tile t = nextTile</*kRelease=*/false>(smem, slots);
      if (t.end < 0) {
        releaseTile(smem, slots);
        break;
      }
      const Mask<C> mask = maskOf(p, t);
      const int steps = t.end - t.begin;
      // The tile's Q buffer, as the loading thread counts it (the slots'
      // count, not yet advanced past this tile).
      const QState qState{slots.count};
      const u64 qDesc =
          sharedDescriptor(smem.qBuffer(qState.stage()) + 64 * w * 128, 16, 1024);
      // After its last S the tile's Q may be replaced.
      auto releaseQ = [&]() {
        if (leader)
          smem.qRing.release(qState);
      };
      auto tileStart = [&](int i) { return (t.end - 1 - i) * kBlockN; };

      float o[1][kOTiles][4];
#pragma unroll
      for (int d = 0; d < kOTiles; ++d)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o[0][d][e] = 0.f;
      OnlineSoftmax<1, kNTiles> stats;
      stats.init();
      u32 pk[1][kBlockN / 16][4];
      int maskedTiles = 0;

      // S = Q K^T of the K stage in kState: one 64 x kBlockN x 16 step per
      // 16 columns of the head dim (32 bytes inside a swizzled row).
      auto issueScores = [&](float(&s)[1][kNTiles][4]) {
        const u64 kDesc =
            sharedDescriptor(smem.k + kState.stage() * kBytesK, 16, 1024);
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < kDimQK / 16; ++kk) {
          const u32 qOffset = (kk / 4) * (kBlockM * 128) + (kk % 4) * 32;
          const u32 kOffset = (kk / 4) * (kBlockN * 128) + (kk % 4) * 32;
          if (kk == 0)
            Product::template ss<0>(s[0], qDesc + (qOffset >> 4),
                                    kDesc + (kOffset >> 4));
          else
            Product::template ss<1>(s[0], qDesc + (qOffset >> 4),
                                    kDesc + (kOffset >> 4));
        }
        wgmmaCommit();
      };
      // O += P V of the V stage in vState; V's 64-column blocks lie
      // kBlockN * 128 bytes apart, its 8-key row groups 1024.
      auto issueUpdate = [&]() {
        const u64 vDesc = sharedDescriptor(smem.v + vState.stage() * kBytesV,
                                           kBlockN * 128, 1024);
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk)
          Update::rs(o[0], pk[0][kk], vDesc + ((kk * 16 * 128) >> 4));
        wgmmaCommit();
      };
      auto releaseK = [&]() {
        if (leader)
          smem.kRing.release(kState);
        kState.advance();
      };
      auto releaseV = [&]() {
        if (leader)
          smem.vRing.release(vState);
        vState.advance();
      };
      // Steps [fullFrom, fullTo) visit the key tiles no mask cuts (the
      // tiles run from the last, so the diagonal's come first, a window's
      // left edge last); they run in a loop of their own, with no
      // element-wise masking.
      int fullFrom, fullTo;
      {
        int lo, hi;
        mask.fullTiles(p, kBlockN, lo, hi);
        fullFrom = min(max(t.end - hi, 0), steps);
        fullTo = max(min(t.end - lo, steps), fullFrom);
      }
      auto softmax = [&](int i, float(&s)[1][kNTiles][4], float(&alpha)[1][2],
                         auto masked) {
        const int n0 = tileStart(i);
        float logitScale;
        if (decltype(masked)::value) {
          logitScale = mask.template apply<true>(p, n0, rowBase, s);
          ++maskedTiles;
        } else {
          logitScale = mask.template apply<false>(p, n0, rowBase, s);
        }
        stats.update(s, alpha, logitScale);
      };
      using Masked = IntegralConstant<bool, true>;
      using Unmasked = IntegralConstant<bool, false>;

      smem.qRing.wait(qState);
      if (steps == 0)
        releaseQ();
      if (steps > 0) {
        // Step 0: S_0 alone (O is still zero).
        float s[1][kNTiles][4], alpha[1][2];
        smem.kRing.wait(kState);
        turns.wait();
        issueScores(s);
        turns.pass();
        if (C::kKeyPadding && w == 0)
          clearValuesPastKeys(smem, vState, t.end - 1, mask.kvEnd, p.seq_kv);
        wgmmaWait<0>();
        fenceAccumulators(s[0]);
        releaseK();
        if (steps == 1)
          releaseQ();
        if (fullFrom == 0 && fullTo > 0)
          softmax(0, s, alpha, Unmasked{});
        else
          softmax(0, s, alpha, Masked{});
        packTile<Ops>(pk, s);
      }
      // Steps 1 .. steps - 1: S_i with O += P_{i-1} V_{i-1} in flight.
      auto step = [&](int i, auto masked) {
        float s[1][kNTiles][4], alpha[1][2];
        smem.kRing.wait(kState);
        turns.wait();
        issueScores(s);
        smem.vRing.wait(vState);
        issueUpdate();
        turns.pass();
        wgmmaWait<1>();
        fenceAccumulators(s[0]);
        releaseK();
        if (i == steps - 1)
          releaseQ();
        softmax(i, s, alpha, masked);
        // O holds P_{i-1} V_{i-1} against the old maxima once that lands.
        wgmmaWait<0>();
        fenceAccumulators(o[0]);
        releaseV();
        OnlineSoftmax<1, kNTiles>::rescale(o, alpha);
        packTile<Ops>(pk, s);
      };
      int i = 1;
      for (; i < max(fullFrom, 1); ++i)
        step(i, Masked{});
      for (; i < fullTo; ++i)
        step(i, Unmasked{});
      for (; i < steps; ++i)
        step(i, Masked{});
      if (steps > 0) {
        smem.vRing.wait(vState);
        turns.wait();
        issueUpdate();
        turns.pass();
        wgmmaWait<0>();
        fenceAccumulators(o[0]);
        releaseV();
      }
      if (p.tile_stats && leader && w == 0) {
        atomicAdd(&p.tile_stats[0], static_cast<unsigned long long>(steps));
        atomicAdd(&p.tile_stats[1], static_cast<unsigned long long>(maskedTiles));
      }
      const int split = splitOf(smem, slots);
      if (kStagesOutput && C::kPackGroup == 1 && !C::kVarlen &&
          p.schedule.splits == 1 && maps.stages_output)
        storeStaged(p, maps, smem, t, w, o, stats);
      else
        Epilogue<C>::store(p, t.b, t.h, t.m0, rowBase, split, o, stats);
      releaseTile(smem, slots);
    }
    // TMA reads the staged output before the block's shared memory goes.
    if (kStagesOutput && leader)
      bulkWait</*kRead=*/true>();
    // The turn the last consumer passed after the last products.
    turns.close();
  }

  static __device__ void run(const FlashParams &p, const TmaMaps &maps,
                             char *smemRaw) {
    const Layout smem(smemRaw);
    const int warpgroup = threadIdx.x / 128;
    if (threadIdx.x == 0) {
      smem.qRing.init(1, kConsumers);
      for (int s = 0; s < kStages; ++s) {
        smem.kRing.initStage(s, 1, kConsumers);
        smem.vRing.initStage(s, 1, kConsumers);
      }
      // The two loading threads and every consumer thread read a slot
      // before it is released.
      smem.tileRing.init(1, 2 + 128 * kConsumers);
      fenceBarrierInit();
    }
    __syncthreads();
    if (warpgroup == 0) {
      if (kConsumers > 1)
        releaseRegisters<kProducerRegisters>();
      const int warp = threadIdx.x / 32;
      // A paged cache's loaders are whole warps (produce).
      if (warp == 0 && (C::kPaged || electOne()))
        produce<false>(p, maps, smem);
      else if (warp == 1 && (C::kPaged || electOne()))
        produce<true>(p, maps, smem);
      else if (warp == 2 && electOne())
        schedule(p, smem);
    } else {
      if (kConsumers > 1)
        claimRegisters<kConsumerRegisters>();
      consume(p, maps, smem, warpgroup - 1);
    }
  }
};

} // namespace sm90
} // namespace attn
