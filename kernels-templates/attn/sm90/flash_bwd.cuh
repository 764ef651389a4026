// Backward flash attention for sm_90a: wgmma products over cp.async tiles
// in the 128-byte swizzle of sm90/flash_fwd.cuh (the same descriptors).
//
// FlashBackwardKV: a block owns kBlockN keys of one (batch, K/V head), a
// warpgroup 64 of them, and sweeps the query tiles of every query head of
// that K/V head, kBlockM rows at a time, through a kStages-deep cp.async
// pipeline of Q, dO, logsumexp and D. Per query tile, each warpgroup:
//   S^T = K Q^T, dP^T = V dO^T   (ss: K, Q, V, dO K-major)
//   P^T and dS^T element-wise, in the accumulators (keys as rows: the
//                                 m16n8 layout of the sm80 kernel's warps)
//   dV += P^T dO, dK += dS^T Q  (rs: P^T, dS^T packed from the
//                                 accumulators; dO, Q MN-major)
// and, in the atomic mode, dS^T goes to shared memory for
//   dQ / scale = dS K          (ss, both MN-major: dS^T [keys][queries]
//                                 and K [keys][dims] as stored), each
//                                 warpgroup 64 query rows by whole 64-column
//                                 blocks of the head dim, added to the f32
//                                 sum with two-element reductions.
// The deterministic mode computes dQ with the sm80 Q-stationary kernel
// (FlashBackwardQ below, on at most 64 keys per tile).
//
// Head dims are whole 64-column swizzle blocks up to 128 (dK and dV of 64
// keys stay in registers); other shapes use the sm80 variant.
#pragma once
#include "attn/sm80/flash_bwd.cuh"
#include "attn/sm90/wgmma.cuh"

namespace attn {
namespace sm90 {

template <class C> struct FlashBackwardKV {
  using Ops = ElementOps<typename C::Element>;
  using Scores = BackwardScores<C>;
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kStages = C::kStages;
  static constexpr int kDimQK = C::kHeadDimQK, kDimV = C::kHeadDimV;
  static constexpr int kWarpgroups = C::kNumWarps / 4;
  static constexpr int kSTiles = kBlockM / 8;
  // dQ: warpgroups along the query tile's m64 tiles, then along the head
  // dim in whole 64-column blocks.
  static constexpr int kDqWarpgroupsM = kBlockM / 64;
  static constexpr int kDqWarpgroupsD = kWarpgroups / kDqWarpgroupsM;
  static constexpr int kDqCols = kDimQK / kDqWarpgroupsD;

  static constexpr int kBytesK = 2 * kBlockN * kDimQK;
  static constexpr int kBytesV = 2 * kBlockN * kDimV;
  static constexpr int kBytesQ = 2 * kBlockM * kDimQK;
  static constexpr int kBytesDO = 2 * kBlockM * kDimV;
  static constexpr int kBytesDS = 2 * kBlockN * kBlockM;
  // The slack lets the tiles start on the swizzle's 1024-byte period.
  static constexpr int kSharedBytes = kBytesK + kBytesV +
                                      kStages * (kBytesQ + kBytesDO) +
                                      kBytesDS + 8 * kStages * kBlockM + 1024;

  using ScoreProduct = Wgmma<typename C::Element, kBlockM>;
  using DkProduct = Wgmma<typename C::Element, kDimQK>;
  using DvProduct = Wgmma<typename C::Element, kDimV>;
  using DqProduct = Wgmma<typename C::Element, kDqCols>;

  static_assert(C::kNumWarps % 4 == 0 && kBlockN == 16 * C::kNumWarps,
                "each warpgroup owns 64 keys");
  static_assert(kBlockM % 64 == 0 && kBlockM <= 256,
                "query tiles are whole 64-column blocks of dS^T");
  static_assert(kDimQK % 64 == 0 && kDimV % 64 == 0,
                "head dims are whole 64-column swizzle blocks");
  static_assert(kWarpgroups % kDqWarpgroupsM == 0 && kDqCols % 64 == 0,
                "dQ: warpgroups split the queries in m64 tiles and the head "
                "dim in 64-column blocks");
  static_assert(kStages == 1 || kStages == 2, "one or two Q/dO stages");

  static __device__ void run(const FlashBwdParams &p, char *smemRaw) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wg = warp / 4;
    const int dqm = wg % kDqWarpgroupsM, dqd = wg / kDqWarpgroupsM;
    const WorkTile block = backwardBlock</*kQueryTiles=*/false>();
    const int n0 = block.mBlock * kBlockN, hk = block.h, b = block.b;
    const int group = p.heads_q / p.heads_kv;

    const u32 sK = (sharedAddress(smemRaw) + 1023) & ~1023u;
    const u32 sV = sK + kBytesK, sQ = sV + kBytesV;
    const u32 sDO = sQ + kStages * kBytesQ, sDS = sDO + kStages * kBytesDO;
    float *sLse = reinterpret_cast<float *>(smemRaw + (sDS + kBytesDS -
                                                       sharedAddress(smemRaw)));
    float *sDelta = sLse + kStages * kBlockM;

    const KeyBlockSteps<C, kBlockM, kBlockN> keySteps(p, b, hk, group, n0);
    const int steps = keySteps.steps, keysValid = keySteps.keysValid;
    loadTile<Swizzle128Layout<kBlockN>, kBlockN, kDimQK, kThreads>(
        sK,
        static_cast<const u16 *>(p.k) + b * p.k_strides[0] + hk * p.k_strides[1] +
            static_cast<i64>(n0) * p.k_strides[2],
        p.k_strides[2], keysValid, kDimQK);
    loadTile<Swizzle128Layout<kBlockN>, kBlockN, kDimV, kThreads>(
        sV,
        static_cast<const u16 *>(p.v) + b * p.v_strides[0] + hk * p.v_strides[1] +
            static_cast<i64>(n0) * p.v_strides[2],
        p.v_strides[2], keysValid, kDimV);

    auto loadStep = [&](int t, int stage) {
      const int h = keySteps.head(t, hk * group), m0 = keySteps.row(t);
      loadTile<Swizzle128Layout<kBlockM>, kBlockM, kDimQK, kThreads>(
          sQ + stage * kBytesQ,
          static_cast<const u16 *>(p.q) + b * p.q_strides[0] + h * p.q_strides[1] +
              static_cast<i64>(m0) * p.q_strides[2],
          p.q_strides[2], p.seq_q - m0, kDimQK);
      loadTile<Swizzle128Layout<kBlockM>, kBlockM, kDimV, kThreads>(
          sDO + stage * kBytesDO,
          static_cast<const u16 *>(p.dout) + b * p.dout_strides[0] +
              h * p.dout_strides[1] + static_cast<i64>(m0) * p.dout_strides[2],
          p.dout_strides[2], p.seq_q - m0, kDimV);
      const i64 row0 = (static_cast<i64>(b) * p.heads_q + h) * p.seq_q + m0;
      for (int i = threadIdx.x; i < kBlockM; i += kThreads) {
        const bool valid = m0 + i < p.seq_q;
        copyAsync4(sharedAddress(sLse + stage * kBlockM + i),
                   valid ? p.lse + row0 + i : p.lse, valid ? 4 : 0);
        copyAsync4(sharedAddress(sDelta + stage * kBlockM + i),
                   valid ? p.delta + row0 + i : p.delta, valid ? 4 : 0);
      }
    };

    // Descriptors (sm90/flash_fwd.cuh): K-major tiles step 32 bytes per 16
    // columns inside a 128-byte row and a whole 64-column block every 4
    // steps; MN-major ones 16 rows (2048 bytes) per 16-deep step, their
    // 64-column blocks `Rows * 128` bytes apart.
    const u64 kRows = sharedDescriptor(sK + wg * 64 * 128, 16, 1024);
    const u64 vRows = sharedDescriptor(sV + wg * 64 * 128, 16, 1024);
    const u64 kCols = sharedDescriptor(sK + dqd * (kDqCols / 64) * (kBlockN * 128),
                                       kBlockN * 128, 1024);
    const u64 dsCols = sharedDescriptor(sDS + dqm * (kBlockN * 128),
                                        kBlockN * 128, 1024);

    float dk[kDimQK / 8][4], dv[kDimV / 8][4];
    zeroFragments(dk);
    zeroFragments(dv);

    // Each step's stage and dS^T are free once every warp is past the step
    // before (its products waited for); cp.async wrote the tiles that
    // wgmma reads through the async proxy, hence the fence.
    using Pipeline = StepPipeline<kStages>;
    Pipeline::start(steps, loadStep);
    for (int t = 0; t < steps; ++t) {
      const int stage =
          Pipeline::begin(t, steps, loadStep, [] { fenceSharedForAsyncProxy(); });

      const int m0 = keySteps.row(t);
      const Mask<C> mask(p, b, keySteps.head(t, hk * group), m0, kBlockM);
      const u32 q = sQ + stage * kBytesQ, dout = sDO + stage * kBytesDO;
      float s[kSTiles][4], dp[kSTiles][4];
      {
        const u64 qRows = sharedDescriptor(q, 16, 1024);
        const u64 doRows = sharedDescriptor(dout, 16, 1024);
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < kDimQK / 16; ++kk) {
          const u32 a = (kk / 4) * (kBlockN * 128) + (kk % 4) * 32;
          const u32 bq = (kk / 4) * (kBlockM * 128) + (kk % 4) * 32;
          if (kk == 0)
            ScoreProduct::template ss<0>(s, kRows + (a >> 4), qRows + (bq >> 4));
          else
            ScoreProduct::template ss<1>(s, kRows + (a >> 4), qRows + (bq >> 4));
        }
#pragma unroll
        for (int kk = 0; kk < kDimV / 16; ++kk) {
          const u32 a = (kk / 4) * (kBlockN * 128) + (kk % 4) * 32;
          const u32 bo = (kk / 4) * (kBlockM * 128) + (kk % 4) * 32;
          if (kk == 0)
            ScoreProduct::template ss<0>(dp, vRows + (a >> 4), doRows + (bo >> 4));
          else
            ScoreProduct::template ss<1>(dp, vRows + (a >> 4), doRows + (bo >> 4));
        }
        wgmmaCommit();
        wgmmaWait<0>();
        fenceAccumulators(s);
        fenceAccumulators(dp);
      }

      // P and dS, element by element; keys are rows, queries columns.
      Scores::applyKeyRows(p, mask, kBlockM, n0, kBlockN, n0 + 16 * warp, 0,
                           sLse + stage * kBlockM, sDelta + stage * kBlockM, s,
                           dp);

      // P^T and dS^T as A fragments (k16 = 16 queries each).
      u32 pA[kBlockM / 16][4], dsA[kBlockM / 16][4];
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        packP<Ops>(pA[kk], s, kk);
        packP<Ops>(dsA[kk], dp, kk);
      }
      // dS^T to shared memory, [keys][queries] in the 128-byte swizzle: a
      // fragment register is two queries of one key.
      if (p.dq_accum) {
#pragma unroll
        for (int kk = 0; kk < kBlockM / 16; ++kk)
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            const int row = 16 * warp + lane / 4 + (r % 2) * 8;
            const int col = kk * 16 + (r / 2) * 8 + (lane % 4) * 2;
            const int chunk = col / 8;
            const u32 address = sDS + (chunk / 8) * (kBlockN * 128) + row * 128 +
                                ((chunk ^ row) % 8) * 16 + (col % 8) * 2;
            asm volatile("st.shared.b32 [%0], %1;" ::"r"(address),
                         "r"(dsA[kk][r])
                         : "memory");
          }
      }

      // dV += P^T dO and dK += dS^T Q over the tile's queries.
      {
        const u64 doCols = sharedDescriptor(dout, kBlockM * 128, 1024);
        const u64 qCols = sharedDescriptor(q, kBlockM * 128, 1024);
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < kBlockM / 16; ++kk)
          DvProduct::rs(dv, pA[kk], doCols + ((kk * 16 * 128) >> 4));
#pragma unroll
        for (int kk = 0; kk < kBlockM / 16; ++kk)
          DkProduct::rs(dk, dsA[kk], qCols + ((kk * 16 * 128) >> 4));
        wgmmaCommit();
      }

      if (p.dq_accum) {
        // Every warpgroup's dS^T, written by the generic proxy, is read by
        // wgmma.
        fenceSharedForAsyncProxy();
        __syncthreads();
        float dq[kDqCols / 8][4];
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk) {
          const u32 step = (kk * 16 * 128) >> 4;
          if (kk == 0)
            DqProduct::template ss<0, /*kTransposed=*/1>(dq, dsCols + step, kCols + step);
          else
            DqProduct::template ss<1, /*kTransposed=*/1>(dq, dsCols + step, kCols + step);
        }
        wgmmaCommit();
        wgmmaWait<0>();
        fenceAccumulators(dq);
        const i64 row0 = (static_cast<i64>(b) * p.heads_q + mask.h) * p.seq_q;
#pragma unroll
        for (int t = 0; t < kDqCols / 8; ++t)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int row = m0 + dqm * 64 + 16 * (warp % 4) + lane / 4 + half * 8;
            const int col = dqd * kDqCols + t * 8 + (lane % 4) * 2;
            if (row < p.seq_q)
              reduceAddPair(p.dq_accum + (row0 + row) * kDimQK + col,
                            dq[t][2 * half], dq[t][2 * half + 1]);
          }
      } else {
        wgmmaWait<0>();
      }
      fenceAccumulators(dk);
      fenceAccumulators(dv);
    }
    waitAsync<0>();

    storeKeyGradients<Ops, kDimQK, kDimV>(p, b, hk, n0 + 16 * warp, 0, 0, dk,
                                          dv);
  }
};

/// The deterministic mode's dQ kernel: the sm80 one on at most 64 keys per
/// tile (its registers hold S and dP of 16 rows by the tile's keys).
template <class C> struct DqConfig : C {
  static constexpr int kBlockN = C::kBlockN < 64 ? C::kBlockN : 64;
};
template <class C> using FlashBackwardQ = sm80::FlashBackwardQ<DqConfig<C>>;

} // namespace sm90
} // namespace attn
