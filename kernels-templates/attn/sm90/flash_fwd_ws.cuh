// Forward flash attention for sm_90a, warp-specialized and persistent:
// one block per SM loops over work tiles (tile_scheduler.h). Warpgroup 0 is
// the producer: one thread loads Q, K and V with TMA into shared memory and
// the loads complete on mbarriers (a full and an empty barrier per stage, K
// and V in rings of their own, so S = Q K^T can start before V lands). The
// other kConsumers warpgroups each own 64 query rows of the tile and run the
// cp.async kernel's schedule on wgmma: step i issues S_i = Q K_i^T and
// O += P_{i-1} V_{i-1} together and runs the softmax of S_i while the
// second product is in flight. Between consumers, named barriers take turns
// issuing products (ping-pong), so one warpgroup's softmax runs while the
// tensor cores work on another's products.
//
// Shared memory (1024-byte aligned, every tile in 128-byte-swizzled blocks
// of 64 columns, as TMA writes them and wgmma reads them): Q, kStages K and
// V stages, then the barriers. Mask, softmax and epilogue are the shared
// components; tiles past seq_q / seq_kv read as zeros (TMA fills them).
//
// The configuration C is the cp.async kernel's (see flash_fwd.cuh), with
// kNumWarps = 4 * (kConsumers + 1) and kBlockM = 64 * kConsumers.
#pragma once
#include "attn/epilogue.cuh"
#include "attn/mask.cuh"
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
  // qFull, qEmpty, then kFull, kEmpty, vFull, vEmpty per stage.
  static constexpr int kBarriers = 2 + 4 * kStages;
  static constexpr int kSharedBytes =
      1024 + kBytesQ + kStages * (kBytesK + kBytesV) + 8 * kBarriers;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kOTiles = kDimV / 8;
  static constexpr TileOrder kOrder = tileOrderFor(Mask<C>::kPositional);
  // Registers per thread after reallocation: 128 producer threads and
  // 128 kConsumers consumer threads share the SM's 64K (one consumer needs
  // no reallocation).
  static constexpr int kProducerRegisters = kConsumers == 2 ? 24 : 32;
  static constexpr int kConsumerRegisters = kConsumers == 1 ? 255 : kConsumers == 2 ? 240 : 160;

  static_assert(kConsumers >= 1 && kConsumers <= 3, "1 to 3 consumer warpgroups");
  static_assert(kBlockM == 64 * kConsumers, "each consumer owns 64 rows");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256 && kBlockM <= 256,
                "a TMA box and a wgmma N hold at most 256 rows");
  static_assert(kDimQK % 16 == 0 && kDimV % 16 == 0,
                "head dims are whole k16 steps");
  static_assert(!C::kTransposeK, "TMA tiles of K^T would need MN-major K");
  static_assert(kConsumers == 1 ||
                    128 * kProducerRegisters +
                            128 * kConsumers * kConsumerRegisters <= 65536,
                "the register budget of one block per SM");

  using Product = Wgmma<typename C::Element, kBlockN>;
  using Update = Wgmma<typename C::Element, kDimV>;

  /// Shared addresses of the tiles and barriers.
  struct Layout {
    u32 q, k, v, bars;
    __device__ __forceinline__ explicit Layout(char *smem) {
      q = (sharedAddress(smem) + 1023) & ~1023u;
      k = q + kBytesQ;
      v = k + kStages * kBytesK;
      bars = v + kStages * kBytesV;
    }
    __device__ __forceinline__ u32 qFull() const { return bars; }
    __device__ __forceinline__ u32 qEmpty() const { return bars + 8; }
    __device__ __forceinline__ u32 kFull(int s) const { return bars + 16 + 8 * s; }
    __device__ __forceinline__ u32 kEmpty(int s) const {
      return bars + 16 + 8 * (kStages + s);
    }
    __device__ __forceinline__ u32 vFull(int s) const {
      return bars + 16 + 8 * (2 * kStages + s);
    }
    __device__ __forceinline__ u32 vEmpty(int s) const {
      return bars + 16 + 8 * (3 * kStages + s);
    }
  };

  /// A position in a ring of kStages buffers and the parity of its use.
  struct Ring {
    int stage = 0;
    u32 phase = 0;
    __device__ __forceinline__ void advance() {
      if (++stage == kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
  };

  /// The work tiles of this block: blockIdx.x, then every gridDim.x-th.
  /// Producer and consumers walk the same sequence, so no tile is handed
  /// over through shared memory.
  struct Tile {
    int b, h, hk, m0, split, begin, end;
  };
  static __device__ __forceinline__ Mask<C> tileAt(const FlashParams &p,
                                                   int index, Tile &t) {
    const WorkTile w = p.schedule.template tile<kOrder>(index);
    Mask<C> mask(p, w.b, w.h, w.mBlock * kBlockM, kBlockM);
    t.b = w.b;
    t.h = w.h;
    t.hk = w.h / (p.heads_q / p.heads_kv);
    t.m0 = w.mBlock * kBlockM;
    t.split = w.split;
    mask.keyTiles(p, kBlockN, w.split, p.schedule.splits, t.begin, t.end);
    return mask;
  }

  static __device__ void produce(const FlashParams &p, const TmaMaps &maps,
                                 const Layout &smem) {
    prefetchTensorMap(&maps.q);
    prefetchTensorMap(&maps.k);
    prefetchTensorMap(&maps.v);
    Ring kRing, vRing;
    u32 qPhase = 0;
    const int numTiles = static_cast<int>(p.schedule.numTiles());
    for (int index = blockIdx.x; index < numTiles; index += gridDim.x) {
      Tile t;
      tileAt(p, index, t);
      // Q of the previous tile is free once every consumer finished its
      // last S (the first wait passes: a fresh barrier's phase 1).
      barrierWait(smem.qEmpty(), qPhase ^ 1);
      barrierExpectBytes(smem.qFull(), kBytesQ);
#pragma unroll
      for (int j = 0; j < kBlocksQK; ++j)
        tmaLoad4d(smem.q + j * kBlockM * 128, &maps.q, smem.qFull(), 64 * j,
                  t.m0, t.h, t.b);
      qPhase ^= 1;
      // Key tiles from the last to the first (diagonal tiles first); V lags
      // K by one tile, as the consumers need V_{i-1} after K_i.
      auto loadK = [&](int n0) {
        barrierWait(smem.kEmpty(kRing.stage), kRing.phase ^ 1);
        barrierExpectBytes(smem.kFull(kRing.stage), kBytesK);
#pragma unroll
        for (int j = 0; j < kBlocksQK; ++j)
          tmaLoad4d(smem.k + kRing.stage * kBytesK + j * kBlockN * 128, &maps.k,
                    smem.kFull(kRing.stage), 64 * j, n0, t.hk, t.b);
        kRing.advance();
      };
      auto loadV = [&](int n0) {
        barrierWait(smem.vEmpty(vRing.stage), vRing.phase ^ 1);
        barrierExpectBytes(smem.vFull(vRing.stage), kBytesV);
#pragma unroll
        for (int j = 0; j < kBlocksV; ++j)
          tmaLoad4d(smem.v + vRing.stage * kBytesV + j * kBlockN * 128, &maps.v,
                    smem.vFull(vRing.stage), 64 * j, n0, t.hk, t.b);
        vRing.advance();
      };
      for (int n = t.end - 1; n >= t.begin; --n) {
        loadK(n * kBlockN);
        if (n + 1 < t.end)
          loadV((n + 1) * kBlockN);
      }
      if (t.end > t.begin)
        loadV(t.begin * kBlockN);
    }
  }

  /// Ping-pong between consumers: warpgroup w issues its products after
  /// warpgroup w - 1 issued its own (barrier 1 + w), then lets w + 1 go.
  static __device__ __forceinline__ void waitTurn(int w) {
    if (kConsumers > 1)
      namedBarrierSync(1 + w, 256);
  }
  static __device__ __forceinline__ void passTurn(int w) {
    if (kConsumers > 1)
      namedBarrierArrive(1 + (w + 1) % kConsumers, 256);
  }

  static __device__ void consume(const FlashParams &p, const Layout &smem,
                                 int w) {
    const bool leader = threadIdx.x % 128 == 0; // releases buffers
    // The warpgroup's products cover its 64 rows; warp g of it holds the
    // accumulators of rows 16 g .. 16 g + 15 (what masks and the epilogue
    // index by).
    const u64 qDesc = sharedDescriptor(smem.q + 64 * w * 128, 16, 1024);
    const int rowBase = 64 * w + 16 * (threadIdx.x / 32 % 4);
    Ring kRing, vRing;
    u32 qPhase = 0;
    // The last consumer opens the first turn.
    if (kConsumers > 1 && w == kConsumers - 1)
      namedBarrierArrive(1, 256);
    const int numTiles = static_cast<int>(p.schedule.numTiles());
    for (int index = blockIdx.x; index < numTiles; index += gridDim.x) {
      Tile t;
      const Mask<C> mask = tileAt(p, index, t);
      const int steps = t.end - t.begin;
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

      // S = Q K^T of the K stage in kRing: one 64 x kBlockN x 16 step per
      // 16 columns of the head dim (32 bytes inside a swizzled row).
      auto issueScores = [&](float(&s)[1][kNTiles][4]) {
        const u64 kDesc =
            sharedDescriptor(smem.k + kRing.stage * kBytesK, 16, 1024);
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
      // O += P V of the V stage in vRing; V's 64-column blocks lie
      // kBlockN * 128 bytes apart, its 8-key row groups 1024.
      auto issueUpdate = [&]() {
        const u64 vDesc = sharedDescriptor(smem.v + vRing.stage * kBytesV,
                                           kBlockN * 128, 1024);
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk)
          Update::rs(o[0], pk[0][kk], vDesc + ((kk * 16 * 128) >> 4));
        wgmmaCommit();
      };
      auto releaseK = [&]() {
        if (leader)
          barrierArrive(smem.kEmpty(kRing.stage));
        kRing.advance();
      };
      auto releaseV = [&]() {
        if (leader)
          barrierArrive(smem.vEmpty(vRing.stage));
        vRing.advance();
      };
      auto softmax = [&](int i, float(&s)[1][kNTiles][4],
                         float(&alpha)[1][2]) {
        const int n0 = tileStart(i);
        if (Mask<C>::kAlwaysElementwise || !mask.tileIsFull(p, n0, kBlockN)) {
          mask.template apply<true>(p, n0, rowBase, s);
          ++maskedTiles;
        } else {
          mask.template apply<false>(p, n0, rowBase, s);
        }
        stats.update(s, alpha);
      };

      barrierWait(smem.qFull(), qPhase);
      qPhase ^= 1;
      if (steps > 0) {
        // Step 0: S_0 alone (O is still zero).
        float s[1][kNTiles][4], alpha[1][2];
        barrierWait(smem.kFull(kRing.stage), kRing.phase);
        waitTurn(w);
        issueScores(s);
        passTurn(w);
        wgmmaWait<0>();
        fenceAccumulators(s[0]);
        releaseK();
        softmax(0, s, alpha);
        packTile<Ops>(pk, s);
      }
      for (int i = 1; i < steps; ++i) {
        float s[1][kNTiles][4], alpha[1][2];
        barrierWait(smem.kFull(kRing.stage), kRing.phase);
        waitTurn(w);
        issueScores(s);
        barrierWait(smem.vFull(vRing.stage), vRing.phase);
        issueUpdate();
        passTurn(w);
        wgmmaWait<1>();
        fenceAccumulators(s[0]);
        releaseK();
        softmax(i, s, alpha);
        // O holds P_{i-1} V_{i-1} against the old maxima once that lands.
        wgmmaWait<0>();
        fenceAccumulators(o[0]);
        releaseV();
        OnlineSoftmax<1, kNTiles>::rescale(o, alpha);
        packTile<Ops>(pk, s);
      }
      // Every S of the tile is done: Q may be replaced.
      if (leader)
        barrierArrive(smem.qEmpty());
      if (steps > 0) {
        barrierWait(smem.vFull(vRing.stage), vRing.phase);
        waitTurn(w);
        issueUpdate();
        passTurn(w);
        wgmmaWait<0>();
        fenceAccumulators(o[0]);
        releaseV();
      }
      if (p.tile_stats && leader && w == 0) {
        atomicAdd(&p.tile_stats[0], static_cast<unsigned long long>(steps));
        atomicAdd(&p.tile_stats[1], static_cast<unsigned long long>(maskedTiles));
      }
      Epilogue<C>::store(p, t.b, t.h, t.m0, rowBase, t.split, o, stats);
    }
    // The turn the last consumer passed after the last products.
    if (kConsumers > 1 && w == 0)
      waitTurn(0);
  }

  static __device__ void run(const FlashParams &p, const TmaMaps &maps,
                             char *smemRaw) {
    const Layout smem(smemRaw);
    const int warpgroup = threadIdx.x / 128;
    if (threadIdx.x == 0) {
      barrierInit(smem.qFull(), 1);
      barrierInit(smem.qEmpty(), kConsumers);
      for (int s = 0; s < kStages; ++s) {
        barrierInit(smem.kFull(s), 1);
        barrierInit(smem.kEmpty(s), kConsumers);
        barrierInit(smem.vFull(s), 1);
        barrierInit(smem.vEmpty(s), kConsumers);
      }
      fenceBarrierInit();
    }
    __syncthreads();
    if (warpgroup == 0) {
      if (kConsumers > 1)
        releaseRegisters<kProducerRegisters>();
      if (threadIdx.x / 32 == 0 && electOne())
        produce(p, maps, smem);
    } else {
      if (kConsumers > 1)
        claimRegisters<kConsumerRegisters>();
      consume(p, smem, warpgroup - 1);
    }
  }
};

} // namespace sm90
} // namespace attn
