// The consumers of the warp-specialized forward (flash_fwd_ws.cuh): each
// of the kConsumers warpgroups owns 64 query rows of the work tile and runs
// the cp.async kernel's schedule on wgmma: step i issues S_i = Q K_i^T and
// O += P_{i-1} V_{i-1} together and runs the softmax of S_i while the
// second product is in flight. Between consumers, named barriers take turns
// issuing products (ping-pong, named_barrier.cuh), so one warpgroup's
// softmax runs while the tensor cores work on another's products. Mask and
// softmax are the shared components; tiles past seq_q / seq_kv read as
// zeros (TMA fills them).
//
// The loop over work tiles and the loops over their key tiles stay in one
// function: split into functions of their own, they compiled to different
// code.
#pragma once
#include "attn/mask.cuh"
#include "attn/sm90/fwd_ws_epilogue.cuh"
#include "attn/sm90/tile_slots.cuh"
#include "attn/softmax.cuh"

namespace attn {
namespace sm90 {

template <class C> struct FwdWsMainloop {
  using Shape = FwdWsShape<C>;
  using Slots = TileSlots<C>;
  using Epilogue = FwdWsEpilogue<C>;
  using Ops = typename Shape::Ops;
  using KvState = typename Slots::KvState;
  using QState = typename Slots::QState;
  using SlotState = typename Slots::SlotState;
  using Product = typename Shape::Product;
  using Update = typename Shape::Update;
  using Scores = float[1][Shape::kNTiles][4]; // S of the warpgroup's rows
  using Probabilities = u32[1][Shape::kBlockN / 16][4]; // P, packed
  using Output = typename Epilogue::Output;
  using Stats = typename Epilogue::Stats;

  /// The work tile's mask, returned by a function as the monolith did:
  /// constructed in place in run(), it changed the code of the
  /// bottom-right causal kernels.
  static __device__ __forceinline__ Mask<C> maskOf(const FlashParams &p,
                                                   const ScheduledTile &t) {
    return Mask<C>(p, t.b, t.h, t.m0, Shape::kBlockM);
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
  /// its last page: see fwd_ws_producer.cuh.)
  static __device__ __forceinline__ void
  clearValuesPastKeys(const Slots &smem, const KvState &vState, int lastTile,
                      int kvEnd, int seqKV) {
    constexpr int kBlockN = Shape::kBlockN;
    const int keys = kvEnd - lastTile * kBlockN; // uniform
    // A paged cache's rows past seq_kv are a page's, not TMA's zeros.
    if (keys >= kBlockN || (!C::kPaged && kvEnd >= seqKV))
      return;
    smem.vRing.wait(vState);
    const u32 base = smem.v + vState.stage() * Slots::kBytesV;
    const int rows = kBlockN - max(keys, 0);
    for (int i = threadIdx.x % 128; i < Shape::kBlocksV * rows * 8;
         i += 128) {
      const int block = i / (rows * 8), j = i % (rows * 8);
      storeShared4(base + block * (kBlockN * 128) +
                       (kBlockN - rows + j / 8) * 128 + (j % 8) * 16,
                   0, 0, 0, 0);
    }
    // wgmma reads them through the async proxy; the other consumers, after
    // this one's turn.
    fenceProxyAsyncShared();
    NamedBarrier{Shape::kOutputBarrier, 128}.sync();
  }

  /// Consumer warpgroup w: every work tile of the block, from the tile
  /// slots to the epilogue.
  static __device__ void run(const FlashParams &p, const TmaMaps &maps,
                             const Slots &smem, int w) {
    const bool leader = threadIdx.x % 128 == 0; // releases buffers
    // The warpgroup's products cover its 64 rows; warp g of it holds the
    // accumulators of rows 16 g .. 16 g + 15 (what masks and the epilogue
    // index by).
    const int rowBase = 64 * w + 16 * (threadIdx.x / 32 % 4);
    const typename Shape::Turns turns{w};
    KvState kState, vState;
    SlotState slots;
    turns.open();
    for (;;) {
      const ScheduledTile t = smem.template nextTile</*kRelease=*/false>(slots);
      if (t.end < 0) {
        smem.releaseTile(slots);
        break;
      }
      const Mask<C> mask = maskOf(p, t);
      const int steps = t.end - t.begin;
      // The tile's Q buffer, as the loading thread counts it (the slots'
      // count, not yet advanced past this tile).
      const QState qState{slots.count};
      const u64 qDesc =
          sharedDescriptor(smem.qBuffer(qState.stage()) + 64 * w * 128, 16,
                           1024);
      // After its last S the tile's Q may be replaced.
      auto releaseQ = [&]() {
        if (leader)
          smem.qRing.release(qState);
      };
      auto tileStart = [&](int i) {
        return (t.end - 1 - i) * Shape::kBlockN;
      };

      Output o;
#pragma unroll
      for (int d = 0; d < Shape::kOTiles; ++d)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o[0][d][e] = 0.f;
      Stats stats;
      stats.init();
      Probabilities pk;
      int maskedTiles = 0;

      // S = Q K^T of the K stage in kState: one 64 x kBlockN x 16 step per
      // 16 columns of the head dim (32 bytes inside a swizzled row).
      auto issueScores = [&](Scores &s) {
        const u64 kDesc =
            sharedDescriptor(smem.k + kState.stage() * Slots::kBytesK, 16,
                             1024);
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < Shape::kDimQK / 16; ++kk) {
          const u32 qOffset =
              (kk / 4) * (Shape::kBlockM * 128) + (kk % 4) * 32;
          const u32 kOffset =
              (kk / 4) * (Shape::kBlockN * 128) + (kk % 4) * 32;
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
        const u64 vDesc =
            sharedDescriptor(smem.v + vState.stage() * Slots::kBytesV,
                             Shape::kBlockN * 128, 1024);
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < Shape::kBlockN / 16; ++kk)
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
        mask.fullTiles(p, Shape::kBlockN, lo, hi);
        fullFrom = min(max(t.end - hi, 0), steps);
        fullTo = max(min(t.end - lo, steps), fullFrom);
      }
      auto softmax = [&](int i, Scores &s, float(&alpha)[1][2], auto masked) {
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
        Scores s;
        float alpha[1][2];
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
        Scores s;
        float alpha[1][2];
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
        Stats::rescale(o, alpha);
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
        atomicAdd(&p.tile_stats[1],
                  static_cast<unsigned long long>(maskedTiles));
      }
      const int split = smem.splitOf(slots);
      Epilogue::store(p, maps, smem, t, w, rowBase, split, o, stats);
      smem.releaseTile(slots);
    }
    Epilogue::finish(leader);
    // The turn the last consumer passed after the last products.
    turns.close();
  }
};

} // namespace sm90
} // namespace attn
