// Forward flash attention, the cp.async main loop: one block per work tile
// (tile_scheduler.h), composed of the mask policy (mask.cuh), the online
// softmax (softmax.cuh) and the epilogue (epilogue.cuh). The two matrix
// products and the shared-memory layout they read come from an Mma policy
// (sm80/flash_fwd.cuh: mma.sync + ldmatrix; sm90/flash_fwd.cuh: wgmma).
//
// A block of C::kNumWarps warps owns C::kBlockM query rows of one (batch,
// head); each warp owns Mma::kMTiles m16 tiles of them and sweeps every key
// tile of C::kBlockN keys through a C::kStages-deep cp.async pipeline:
// S = Q K^T, masking on the tiles that need it, online softmax, O += P V with
// P packed from the S accumulators.
//
// With asynchronous products (wgmma) the two are software-pipelined by one
// tile: step i starts S_i and O += P_{i-1} V_{i-1} together and runs the
// softmax of S_i while the second is in flight, so the tensor cores work
// during the softmax. V then lags K by kLag = 1 tile in the pipeline: cp.async
// group g holds K_g and V_{g-kLag}. One barrier per step orders both the
// landing of group i and the reuse of the stages that step i-1 read.
//
// The configuration C binds typed constants only (see the emitted source):
//   Element (F16/BF16), BiasElement, kHeadDimQK, kHeadDimV, kBlockM, kBlockN,
//   kNumWarps, kStages, kTransposeK, kCausal, kBottomRight, kWindow,
//   kKeyPadding, kKeep, kBias, kScoreMod, kWriteLse, kVarlen, kSinks,
//   kPaged, kPackGroup (packed rows, see mask.cuh), and scoreMod().
//
// An Mma policy provides kMTiles, kNTiles (kBlockN / 8), kOTiles, kSharedBytes,
// kAsyncProducts (products run while other instructions issue) and,
// constructed per thread on the dynamic shared memory:
//   loadQ / loadK / loadV  cp.async copies into its layout (committed by the
//                    caller)
//   tileLanded()     what must follow cp.async.wait before the barrier
//   scores(s, st)    starts s = Q K^T of K stage st, in m16n8 accumulator order
//   accumulate(o, p, st)  starts o += P V of V stage st, P packed per k16 step
//   scoresDone(s, updatePending), accumulateDone(o)
//                    wait for the product started last (scores: with or
//                    without an accumulate started after it)
#pragma once
#include "attn/epilogue.cuh"
#include "attn/mask.cuh"
#include "attn/softmax.cuh"

namespace attn {

template <class C, class Mma> struct FlashForward {
  using Ops = ElementOps<typename C::Element>;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kStages = C::kStages;
  static constexpr int kSharedBytes = Mma::kSharedBytes;
  static constexpr int kMTiles = Mma::kMTiles, kNTiles = Mma::kNTiles;
  static constexpr int kOTiles = Mma::kOTiles;
  static constexpr int kLag = Mma::kAsyncProducts ? 1 : 0;
  static constexpr int kRowsPerWarp = 16 * kMTiles;
  static constexpr TileOrder kOrder = tileOrderFor(Mask<C>::kPositional);

  // Paged caches (see run): pages of 16 keys and up that divide the tile
  // are copied as TilePages, with the tile's table entries in registers.
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kMaxTilePages = kBlockN / 16 < 4 ? kBlockN / 16 : 4;
  template <int P>
  using TilePagesOf = TilePages<kBlockN, kThreads, P, kMaxTilePages>;
  template <int P> static constexpr bool tilePagesServe() {
    return P < kBlockN &&
           TilePagesOf<P>::template serves<C::kHeadDimQK>() &&
           TilePagesOf<P>::template serves<C::kHeadDimV>();
  }
  static constexpr bool kAnyTilePages = tilePagesServe<16>() ||
                                        tilePagesServe<32>() ||
                                        tilePagesServe<64>() ||
                                        tilePagesServe<128>();
  static constexpr int kPageEntries = kAnyTilePages ? kMaxTilePages : 1;
  /// f(IntegralConstant<int, P>) where pageSize is a P that TilePages
  /// serves (K and V); whether it was.
  template <int P, class F>
  static __device__ __forceinline__ bool tryTilePages(int pageSize, F &f) {
    if constexpr (tilePagesServe<P>()) {
      if (pageSize == P) {
        f(IntegralConstant<int, P>{});
        return true;
      }
    }
    return false;
  }
  template <class F>
  static __device__ __forceinline__ bool withTilePages(int pageSize, F &&f) {
    return tryTilePages<16>(pageSize, f) || tryTilePages<32>(pageSize, f) ||
           tryTilePages<64>(pageSize, f) || tryTilePages<128>(pageSize, f);
  }

  static_assert(kRowsPerWarp * C::kNumWarps == kBlockM,
                "the warps own the block's rows in whole m16 tiles");
  static_assert(kNTiles * 8 == kBlockN, "key tiles are whole n8 tiles");
  static_assert(C::kHeadDimQK % 8 == 0 && C::kHeadDimV % 8 == 0,
                "head dims are multiples of 8");

  static __device__ void run(const FlashParams &p, char *smemRaw) {
    const int rowBase = threadIdx.x / 32 * kRowsPerWarp;
    Mma mma(smemRaw);

    // The work tile of this block; the schedule owns the order (positional
    // masks: longest first).
    WorkTile tile = p.schedule.template tile<kOrder>(blockIdx.x);
    // Ragged batches: the launch covers a bound of the m-blocks; a block
    // past the last has no rows.
    if (C::kVarlen && !resolveVarlenTile(tile, p.cu_seqlens_q, p.batch,
                                         p.seq_q, kBlockM))
      return;
    const Mask<C> mask(p, tile.b, tile.h, tile.mBlock * kBlockM, kBlockM);
    // Packed rows: the launch head is the K/V head.
    const int hk =
        C::kPackGroup > 1 ? tile.h : tile.h / (p.heads_q / p.heads_kv);
    int tileBegin, tileEnd;
    mask.keyTiles(p, kBlockN, tile.split, p.schedule.splits, tileBegin, tileEnd);
    const int numTiles = tileEnd - tileBegin;

    // The sequence's first query and key (a ragged batch's offsets; 0
    // otherwise); a transposed k holds the keys along its last dimension.
    const u16 *q = static_cast<const u16 *>(p.q) + mask.b * p.q_strides[0] +
                   mask.h * C::kPackGroup * p.q_strides[1] +
                   (mask.qStart() + (C::kPackGroup > 1 ? 0 : mask.m0)) *
                       p.q_strides[2];
    // A paged cache's first dimension is its pages (found by the table).
    const int kvBatch = C::kPaged ? 0 : mask.b;
    const u16 *k = static_cast<const u16 *>(p.k) + kvBatch * p.k_strides[0] +
                   hk * p.k_strides[1] +
                   (C::kTransposeK ? mask.kStart() : mask.kStart() * p.k_strides[2]);
    const u16 *v = static_cast<const u16 *>(p.v) + kvBatch * p.v_strides[0] +
                   hk * p.v_strides[1] + mask.kStart() * p.v_strides[2];
    // Tiles run from the last key tile to the first, so that the diagonal
    // (masked) tiles of a causal block come first.
    auto tileStart = [&](int i) { return (tileEnd - 1 - i) * kBlockN; };

    // A paged cache, by its page size (uniform over the launch):
    // - pages holding whole tiles: one page per tile;
    // - pages of 16 keys and up that divide the tile (TilePages): the
    //   dense copies, each one's page a constant (the size a constant
    //   too: the kernel switches on it);
    // - other pages dividing the tile (PageByPage: 1-8 keys, ...): each
    //   thread copies from one page of a tile;
    // - others (24-key pages...): row by row (PagedRowLookup).
    // But in the last, a tile's table entries are read a tile ahead, with
    // the copies of the tile before, and have landed when its copies issue:
    // waiting for the table at the copies cost a round trip per tile with
    // one tile in flight. V of a tile reuses K's entries; with V one tile
    // behind K (kLag), V's copies go first in a group, while the entries
    // still hold the tile that K loaded in the group before.
    using PageCopies = PageByPage<kBlockN, kThreads>;
    const PageTable pageTable(C::kPaged ? p.block_table + mask.b * p.table_stride
                                        : nullptr,
                              p.page_size, p.num_pages);
    const bool wholeTilePages = p.page_size % kBlockN == 0;
    const bool tilePages =
        !wholeTilePages && withTilePages(p.page_size, [](auto) {});
    const bool pageByPage =
        !wholeTilePages && !tilePages && PageCopies::fits(pageTable);
    const typename PageCopies::Place pagePlace = PageCopies::place(pageTable);
    // The first key of the thread's page in a tile (page by page).
    const int pageKey = pageByPage ? pagePlace.page * p.page_size : 0;
    // The table entries of K tile i's pages (those the thread copies from:
    // one but with TilePages) and of tile i + 1's.
    int pageEntries[kPageEntries], nextEntries[kPageEntries];
#pragma unroll
    for (int e = 0; e < kPageEntries; ++e)
      pageEntries[e] = nextEntries[e] = 0;
    auto readPageEntries = [&](int i) {
      if constexpr (C::kPaged) {
        if (i >= numTiles || !(wholeTilePages || tilePages || pageByPage))
          return;
        const int n0 = tileStart(i) + pageKey;
        const int pages = tilePages ? kBlockN >> pageTable.shift : 1;
#pragma unroll
        for (int e = 0; e < kPageEntries; ++e) {
          const int key = n0 + e * p.page_size;
          if (e < pages && key < mask.kvEnd)
            nextEntries[e] = pageTable.entry(key);
        }
      }
    };
    // Tile i's keys [n0, n0 + kBlockN) of K (or V) into a stage.
    auto loadKeys = [&](bool isK, int stage, int i) {
      const int n0 = tileStart(i);
      const u16 *rows = isK ? k : v;
      const i64 *strides = isK ? p.k_strides : p.v_strides;
      const int valid = mask.kvEnd - n0;
      if constexpr (!C::kPaged) {
        if (isK)
          mma.loadK(stage, C::kTransposeK ? rows + n0 : rows + n0 * strides[2],
                    strides[2], valid);
        else
          mma.loadV(stage, rows + n0 * strides[2], strides[2], valid);
      } else {
        auto load = [&](const auto &src) {
          if (isK)
            mma.loadKRows(stage, src, valid);
          else
            mma.loadVRows(stage, src, valid);
        };
        if (isK) {
#pragma unroll
          for (int e = 0; e < kPageEntries; ++e)
            pageEntries[e] = nextEntries[e];
          readPageEntries(i + 1);
        }
        if (wholeTilePages) {
          const u16 *base = rows + pageTable.clamp(pageEntries[0]) * strides[0] +
                            pageTable.rowInPage(n0) * strides[2];
          if (isK)
            mma.loadK(stage, base, strides[2], valid);
          else
            mma.loadV(stage, base, strides[2], valid);
        } else if (tilePages) {
          withTilePages(p.page_size, [&](auto size) {
            using Pages = TilePagesOf<decltype(size)::value>;
            load(Pages{rows, strides[0], strides[2], pageTable, pageEntries,
                       valid});
          });
        } else if (pageByPage) {
          load(PageCopies{rows, strides[0], strides[2], pageTable, pagePlace,
                          valid, pageEntries[0]});
        } else {
          load(PagedRowLookup{rows, strides[0], strides[2], pageTable, n0});
        }
      }
    };

    // cp.async group g: K of tile g and V of tile g - kLag (Q joins group 0).
    // Paged with a lag, V_{g-1} goes first: it reuses K_{g-1}'s entries.
    auto loadGroup = [&](int g) {
      constexpr bool kValuesFirst = C::kPaged && kLag > 0;
      if (kValuesFirst && g >= kLag && g - kLag < numTiles)
        loadKeys(false, (g - kLag) % kStages, g - kLag);
      if (g < numTiles)
        loadKeys(true, g % kStages, g);
      if (!kValuesFirst && g >= kLag && g - kLag < numTiles)
        loadKeys(false, (g - kLag) % kStages, g - kLag);
      commitAsync();
    };

    readPageEntries(0);
    if (C::kPackGroup > 1)
      mma.loadQRows(PackedQueryRows<C::kPackGroup>{q, p.q_strides[1],
                                                   p.q_strides[2], mask.m0},
                    mask.seqQ(p) * C::kPackGroup - mask.m0);
    else
      mma.loadQ(q, p.q_strides[2], mask.seqQ(p) - mask.m0);
#pragma unroll
    for (int g = 0; g < kStages - 1; ++g)
      loadGroup(g);

    float o[kMTiles][kOTiles][4];
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int d = 0; d < kOTiles; ++d)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o[mt][d][e] = 0.f;
    OnlineSoftmax<kMTiles, kNTiles> stats;
    stats.init();
    // P of a tile, packed to the element type per k16 step.
    u32 pk[kMTiles][kBlockN / 16][4];
    int maskedTiles = 0;

    // Waits for group i (K_i and V_{i-kLag}); the barrier also means every
    // warp is past step i-1, so the stages it read are free for group
    // i + kStages - 1.
    // One stage has no group in flight to overlap: every warp leaves the
    // stage before group i overwrites it, and all wait for it to land.
    auto beginStep = [&](int i) {
      if constexpr (kStages == 1) {
        __syncthreads();
        loadGroup(i);
        waitAsync<0>();
      } else {
        waitAsync<kStages - 2>();
      }
      mma.tileLanded();
      __syncthreads();
      if constexpr (kStages > 1)
        loadGroup(i + kStages - 1);
    };
    // Masks S_i (element-wise only where the tile needs it), updates the
    // row statistics and exponentiates in place; alpha rescales what O
    // holds to the new maxima.
    auto softmax = [&](int i, float(&s)[kMTiles][kNTiles][4],
                       float(&alpha)[kMTiles][2]) {
      const int n0 = tileStart(i);
      float logitScale;
      if (Mask<C>::kAlwaysElementwise || !mask.tileIsFull(p, n0, kBlockN)) {
        logitScale = mask.template apply<true>(p, n0, rowBase, s);
        ++maskedTiles;
      } else {
        logitScale = mask.template apply<false>(p, n0, rowBase, s);
      }
      stats.update(s, alpha, logitScale);
    };
    auto pack = [&](const float(&s)[kMTiles][kNTiles][4]) {
      packTile<Ops>(pk, s);
    };
    auto rescale = [&](const float(&alpha)[kMTiles][2]) {
      OnlineSoftmax<kMTiles, kNTiles>::rescale(o, alpha);
    };

    if (kLag == 0) {
      for (int i = 0; i < numTiles; ++i) {
        beginStep(i);
        float s[kMTiles][kNTiles][4], alpha[kMTiles][2];
        mma.scores(s, i % kStages);
        mma.scoresDone(s, false);
        softmax(i, s, alpha);
        rescale(alpha);
        pack(s);
        mma.accumulate(o, pk, i % kStages);
        mma.accumulateDone(o);
      }
    } else {
      // Step i computes S_i and O += P_{i-1} V_{i-1}; the first and last
      // steps are peeled so that every started wgmma is waited for on the
      // same path (ptxas serializes them otherwise).
      if (numTiles > 0) {
        beginStep(0);
        float s[kMTiles][kNTiles][4], alpha[kMTiles][2];
        mma.scores(s, 0);
        mma.scoresDone(s, false);
        softmax(0, s, alpha); // O is still zero: nothing to rescale
        pack(s);
      }
      for (int i = 1; i < numTiles; ++i) {
        beginStep(i);
        float s[kMTiles][kNTiles][4], alpha[kMTiles][2];
        mma.scores(s, i % kStages);
        mma.accumulate(o, pk, (i - 1) % kStages);
        mma.scoresDone(s, true);
        softmax(i, s, alpha);
        // O holds P_{i-1} V_{i-1} against the old maxima once that lands.
        mma.accumulateDone(o);
        rescale(alpha);
        pack(s);
      }
      if (numTiles > 0) {
        beginStep(numTiles);
        mma.accumulate(o, pk, (numTiles - 1) % kStages);
        mma.accumulateDone(o);
      }
    }
    waitAsync<0>();
    // What the schedule did, for tests and profiles: tiles outside the
    // masks' reach are never computed, full tiles are not masked.
    if (p.tile_stats && threadIdx.x == 0) {
      atomicAdd(&p.tile_stats[0], static_cast<unsigned long long>(numTiles));
      atomicAdd(&p.tile_stats[1], static_cast<unsigned long long>(maskedTiles));
    }

    // The split index again (splits are the fastest part of a tile's
    // index) rather than kept live through the main loop.
    Epilogue<C>::store(p, mask.b, mask.h, mask.m0, rowBase,
                       static_cast<int>(blockIdx.x) % p.schedule.splits, o,
                       stats);
  }
};

} // namespace attn

