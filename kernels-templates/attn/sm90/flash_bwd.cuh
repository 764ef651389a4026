// Backward flash attention for sm_90a: wgmma products over cp.async tiles
// in the 128-byte swizzle of sm90/flash_fwd.cuh (the same descriptors).
//
// FlashBackwardKV: a block owns kBlockN keys of one (batch, K/V head) and
// sweeps the query tiles of every query head of that K/V head, kBlockM rows
// at a time, through a kStages-deep cp.async pipeline of Q, dO, logsumexp
// and D. kKeySplit warpgroups share each 64 keys of the block. Per query
// tile, each warpgroup:
//   S^T = K Q^T, dP^T = V dO^T   (ss: K, Q, V, dO K-major; its 64 keys by
//                                 its 1 / kKeySplit of the query tile)
//   P^T and dS^T element-wise, in the accumulators (keys as rows: the
//                                 m16n8 layout of the sm80 kernel's warps)
//   dV += P^T dO, dK += dS^T Q  (its 1 / kKeySplit of the head dims; with
//                                 one warpgroup per 64 keys rs: P^T, dS^T
//                                 packed from the accumulators; with two,
//                                 ss: P^T and dS^T of the whole query tile
//                                 from shared memory; dO, Q MN-major)
// and, in the atomic mode, dS^T goes to shared memory for
//   dQ / scale = dS K          (ss, both MN-major: dS^T [keys][queries]
//                                 and K [keys][dims] as stored), each
//                                 warpgroup 64 query rows by whole 64-column
//                                 blocks of the head dim, added to the f32
//                                 sum: where shared memory holds the query
//                                 tile's dQ (f32), staged there and added by
//                                 one bulk reduction per step (thread 0,
//                                 in the next step, once its S^T and dP^T
//                                 are done) to dq_accum laid out tile by tile
//                                 (TiledDqAccum), else by each thread, two
//                                 elements per reduction. Those per-thread
//                                 reductions (8 rows of 32 bytes per warp
//                                 instruction) took a third of the kernel's
//                                 time at hd128 (bench/NOTES.md step 45).
// The deterministic mode computes dQ with the sm80 Q-stationary kernel
// (FlashBackwardQ below, on at most 64 keys per tile).
//
// Head dims are whole 64-column swizzle blocks; a warpgroup keeps dK and dV
// of its keys and head-dim slice in registers, at most 128 columns each, so
// head dims up to 128 take one warpgroup per 64 keys and up to 256 two.
// Other shapes use the sm80 variant.
#pragma once
#include "attn/sm80/flash_bwd.cuh"
#include "attn/sm90/tma.cuh"
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
  // Warpgroups per 64 keys; each takes kScoreCols queries of S^T and dP^T
  // and a kSliceQK / kSliceV slice of dK / dV.
  static constexpr int kKeySplit = kWarpgroups * 64 / kBlockN;
  static constexpr int kScoreCols = kBlockM / kKeySplit;
  static constexpr int kSliceQK = kDimQK / kKeySplit, kSliceV = kDimV / kKeySplit;
  static constexpr int kSTiles = kScoreCols / 8;
  // dQ: warpgroups along the query tile's m64 tiles, then along the head
  // dim in whole 64-column blocks, one block's product at a time (its
  // accumulators live beside dK and dV).
  static constexpr int kDqWarpgroupsM = kBlockM / 64;
  static constexpr int kDqWarpgroupsD = kWarpgroups / kDqWarpgroupsM;
  static constexpr int kDqCols = kDimQK / kDqWarpgroupsD;
  static constexpr int kDqChunk = 64;

  static constexpr int kBytesK = 2 * kBlockN * kDimQK;
  static constexpr int kBytesV = 2 * kBlockN * kDimV;
  static constexpr int kBytesQ = 2 * kBlockM * kDimQK;
  static constexpr int kBytesDO = 2 * kBlockM * kDimV;
  static constexpr int kBytesDS = 2 * kBlockN * kBlockM;
  static constexpr int kBytesP = kKeySplit > 1 ? kBytesDS : 0;
  // The slack lets the tiles start on the swizzle's 1024-byte period.
  static constexpr int kSharedUnstaged = kBytesK + kBytesV +
                                         kStages * (kBytesQ + kBytesDO) +
                                         kBytesDS + kBytesP +
                                         8 * kStages * kBlockM + 1024;
  // The staged dQ: the query tile's, f32, in the order of TiledDqAccum
  // (flash_bwd.cuh), which dq_accum then has. KernelVariants.cpp's
  // sm90BackwardShared decides the same.
  static constexpr int kBytesDqStaged = 4 * kBlockM * kDimQK;
  static constexpr bool kStageDq =
      kSharedUnstaged + kBytesDqStaged <= kMaxSharedSm90;
  static constexpr int kSharedBytes =
      kSharedUnstaged + (kStageDq ? kBytesDqStaged : 0);
  using DqAccum = typename Conditional<kStageDq, TiledDqAccum<C, kBlockM>,
                                       RowMajorDqAccum<C>>::type;

  using ScoreProduct = Wgmma<typename C::Element, kScoreCols>;
  using DkProduct = Wgmma<typename C::Element, kSliceQK>;
  using DvProduct = Wgmma<typename C::Element, kSliceV>;
  using DqProduct = Wgmma<typename C::Element, kDqChunk>;

  static_assert(C::kNumWarps % 4 == 0 && kBlockN % 64 == 0 &&
                    kKeySplit * kBlockN == kWarpgroups * 64 &&
                    (kKeySplit == 1 || kKeySplit == 2),
                "one or two warpgroups per 64 keys");
  static_assert(kBlockM % 64 == 0 && kBlockM <= 256 && kScoreCols % 16 == 0,
                "query tiles are whole 64-column blocks of dS^T");
  static_assert(kSliceQK % 64 == 0 && kSliceV % 64 == 0 && kSliceQK <= 128 &&
                    kSliceV <= 128,
                "a warpgroup's dK and dV slices are whole 64-column swizzle "
                "blocks, at most 128 columns in registers");
  static_assert(kWarpgroups % kDqWarpgroupsM == 0 && kDqCols % 64 == 0,
                "dQ: warpgroups split the queries in m64 tiles and the head "
                "dim in 64-column blocks");
  static_assert(kStages == 1 || kStages == 2, "one or two Q/dO stages");
  static_assert(!C::kVarlen, "a ragged batch's backward runs sm80's kernels "
                             "(its dQ sums are tiled per batch entry)");

  /// A warp's fragments of [keys][queries] scores (P^T or dS^T) to their
  /// shared tile in the 128-byte swizzle, one stmatrix per 16 queries: its
  /// matrix r is fragment register r (keys + 8 for odd r, queries + 8 for
  /// r >= 2), and lane j addresses row j % 8 of matrix j / 8, one 16-byte
  /// chunk of the swizzle. Four stores in place of sixteen 4-byte ones and
  /// their addresses: the element-wise step leaves the tensor cores idle
  /// (bench/NOTES.md step 53).
  static __device__ __forceinline__ void
  storeScores(u32 tile, int keyRow0, int col0,
              const u32 (&a)[kScoreCols / 16][4]) {
    const int lane = threadIdx.x % 32;
    const int row = keyRow0 + (lane / 8) % 2 * 8 + lane % 8;
#pragma unroll
    for (int kk = 0; kk < kScoreCols / 16; ++kk) {
      const int chunk = (col0 + kk * 16) / 8 + lane / 16;
      storeMatrixX4(tile + (chunk / 8) * (kBlockN * 128) + row * 128 +
                        ((chunk ^ row) % 8) * 16,
                    a[kk]);
    }
  }

  /// acc = A B^T over kDim columns, A the warpgroup's 64 key rows and B the
  /// kScoreCols query rows, both K-major in 128-byte-swizzled 64-column
  /// blocks: each k16 step is 32 bytes along a row, each fourth a whole
  /// block (kBlockN or kBlockM rows of 128 bytes) on.
  template <int kDim>
  static __device__ __forceinline__ void
  scoreProduct(float (&acc)[kSTiles][4], u64 keyRows, u64 queryRows) {
#pragma unroll
    for (int kk = 0; kk < kDim / 16; ++kk) {
      const u32 a = (kk / 4) * (kBlockN * 128) + (kk % 4) * 32;
      const u32 b = (kk / 4) * (kBlockM * 128) + (kk % 4) * 32;
      if (kk == 0)
        ScoreProduct::template ss<0>(acc, keyRows + (a >> 4), queryRows + (b >> 4));
      else
        ScoreProduct::template ss<1>(acc, keyRows + (a >> 4), queryRows + (b >> 4));
    }
  }

  /// S^T = K Q^T and dP^T = V dO^T of the warpgroup's 64 keys (kRows,
  /// vRows: descriptors of their K-major rows) by the kScoreCols queries
  /// of the tile at q and dout from column scoreCol0; one commit group.
  static __device__ __forceinline__ void
  issueScores(float (&s)[kSTiles][4], float (&dp)[kSTiles][4], u64 kRows,
              u64 vRows, u32 q, u32 dout, int scoreCol0) {
    const u64 qRows = sharedDescriptor(q + scoreCol0 * 128, 16, 1024);
    const u64 doRows = sharedDescriptor(dout + scoreCol0 * 128, 16, 1024);
    wgmmaFence();
    scoreProduct<kDimQK>(s, kRows, qRows);
    scoreProduct<kDimV>(dp, vRows, doRows);
    wgmmaCommit();
  }

  /// dV += P^T dO and dK += dS^T Q over the query tile (doCols, qCols: the
  /// MN-major descriptors of the warpgroup's head-dim slices), one commit
  /// group: P^T and dS^T from the registers with one warpgroup per 64 keys,
  /// else those of the whole tile from shared memory (sP, sDS).
  static __device__ __forceinline__ void
  issueKeyGradients(float (&dv)[kSliceV / 8][4], float (&dk)[kSliceQK / 8][4],
                    const u32 (&pA)[kScoreCols / 16][4],
                    const u32 (&dsA)[kScoreCols / 16][4], u64 doCols,
                    u64 qCols, int keyGroup, u32 sP, u32 sDS) {
    wgmmaFence();
    if constexpr (kKeySplit == 1) {
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk)
        DvProduct::rs(dv, pA[kk], doCols + ((kk * 16 * 128) >> 4));
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk)
        DkProduct::rs(dk, dsA[kk], qCols + ((kk * 16 * 128) >> 4));
    } else {
      const u64 pRows = sharedDescriptor(sP + keyGroup * 64 * 128, 16, 1024);
      const u64 dsRows = sharedDescriptor(sDS + keyGroup * 64 * 128, 16, 1024);
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        const u32 a = (kk / 4) * (kBlockN * 128) + (kk % 4) * 32;
        DvProduct::template ss<1, 0, 1>(dv, pRows + (a >> 4),
                                        doCols + ((kk * 16 * 128) >> 4));
      }
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        const u32 a = (kk / 4) * (kBlockN * 128) + (kk % 4) * 32;
        DkProduct::template ss<1, 0, 1>(dk, dsRows + (a >> 4),
                                        qCols + ((kk * 16 * 128) >> 4));
      }
    }
    wgmmaCommit();
  }

  /// Chunk c (kDqChunk columns) of the warpgroup's dQ / scale = dS K, from
  /// dS^T (dsCols) and K (kCols) both MN-major; one commit group.
  static __device__ __forceinline__ void
  issueDq(float (&dq)[kDqChunk / 8][4], u64 dsCols, u64 kCols, int c) {
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      const u32 step = (kk * 16 * 128) >> 4;
      const u64 k = kCols + ((c * (kBlockN * 128)) >> 4) + step;
      if (kk == 0)
        DqProduct::template ss<0, 1>(dq, dsCols + step, k);
      else
        DqProduct::template ss<1, 1>(dq, dsCols + step, k);
    }
    wgmmaCommit();
  }

  /// The warp's dQ chunk (rows of m64 tile dqm, columns from col0) to the
  /// staged query tile at sDq, in TiledDqAccum's order.
  static __device__ __forceinline__ void
  stageDqChunk(u32 sDq, int dqm, int col0, const float (&dq)[kDqChunk / 8][4]) {
    const u32 chunk = sDq + (dqm * (kDimQK / 64) + col0 / 64) * 16384 +
                      (threadIdx.x / 32 % 4) * 4096 + threadIdx.x % 32 * 16;
#pragma unroll
    for (int j = 0; j < kDqChunk / 8; ++j)
      storeShared4f(chunk + j * 512, dq[j][0], dq[j][1], dq[j][2], dq[j][3]);
  }

  /// Adds the staged dQ of the query tile at row m0 of head h to its f32
  /// sums, one bulk reduction (the calling thread's bulk group).
  static __device__ __forceinline__ void
  reduceStagedDq(const FlashBwdParams &p, int b, int h, int m0, u32 sDq) {
    if constexpr (kStageDq) {
      bulkReduceAddF32(
          p.dq_accum + DqAccum::tile(static_cast<i64>(b) * p.heads_q + h, m0,
                                     p.seq_q),
          sDq, kBytesDqStaged);
      bulkCommit();
    }
  }

  static __device__ void run(const FlashBwdParams &p, char *smemRaw) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wg = warp / 4;
    const int keyGroup = wg / kKeySplit, part = wg % kKeySplit;
    const int keyRow0 = 64 * keyGroup + 16 * (warp % 4);
    const int scoreCol0 = part * kScoreCols;
    const int dqm = wg % kDqWarpgroupsM, dqd = wg / kDqWarpgroupsM;
    const WorkTile block = backwardBlock</*kQueryTiles=*/false>();
    const int n0 = block.mBlock * kBlockN, hk = block.h, b = block.b;
    const int group = p.heads_q / p.heads_kv;

    const u32 sK = (sharedAddress(smemRaw) + 1023) & ~1023u;
    const u32 sV = sK + kBytesK, sQ = sV + kBytesV;
    const u32 sDO = sQ + kStages * kBytesQ, sDS = sDO + kStages * kBytesDO;
    const u32 sP = sDS + kBytesDS, sDq = sP + kBytesP;
    float *sLse = reinterpret_cast<float *>(
        smemRaw + (sDq + (kStageDq ? kBytesDqStaged : 0) -
                   sharedAddress(smemRaw)));
    // The staged dQ is read by thread 0's bulk reduction in the step after
    // it: issued after that step's first barrier (every warp's stores made
    // visible to the async proxy before it) and its first products, and
    // waited for before the barrier that precedes its dQ product.
    const bool stageDq = kStageDq && p.dq_accum;
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
    const u64 kRows = sharedDescriptor(sK + keyGroup * 64 * 128, 16, 1024);
    const u64 vRows = sharedDescriptor(sV + keyGroup * 64 * 128, 16, 1024);
    const u64 kCols = sharedDescriptor(sK + dqd * (kDqCols / 64) * (kBlockN * 128),
                                       kBlockN * 128, 1024);
    const u64 dsCols = sharedDescriptor(sDS + dqm * (kBlockN * 128),
                                        kBlockN * 128, 1024);

    float dk[kSliceQK / 8][4], dv[kSliceV / 8][4];
    zeroFragments(dk);
    zeroFragments(dv);

    // Each step's stage, dS^T and P^T are free once every warp is past the
    // step before (its products waited for); cp.async wrote the tiles that
    // wgmma reads through the async proxy, hence the fence.
    using Pipeline = StepPipeline<kStages>;
    Pipeline::start(steps, loadStep);
    for (int t = 0; t < steps; ++t) {
      // Step t + 1's loads wait until step t's first products are issued:
      // issued before them, they delayed the products and their data landed
      // while those products' wgmma read shared memory at its full rate
      // (bench/NOTES.md step 50).
      const int stage = Pipeline::template begin</*kDeferNext=*/true>(
          t, steps, loadStep, [] { fenceSharedForAsyncProxy(); });

      const int m0 = keySteps.row(t);
      const Mask<C> mask(p, b, keySteps.head(t, hk * group), m0, kBlockM);
      const u32 q = sQ + stage * kBytesQ, dout = sDO + stage * kBytesDO;
      float s[kSTiles][4], dp[kSTiles][4];
      u32 pA[kScoreCols / 16][4], dsA[kScoreCols / 16][4];
      const u64 doCols = sharedDescriptor(
          dout + part * (kSliceV / 64) * (kBlockM * 128), kBlockM * 128, 1024);
      const u64 qCols = sharedDescriptor(
          q + part * (kSliceQK / 64) * (kBlockM * 128), kBlockM * 128, 1024);
      issueScores(s, dp, kRows, vRows, q, dout, scoreCol0);
      Pipeline::next(t, steps, loadStep);

      wgmmaWait<0>();
      fenceAccumulators(s);
      fenceAccumulators(dp);
      // The previous step's dQ: the bulk reduction reads its staging while
      // the element-wise step leaves shared memory idle.
      if (stageDq && threadIdx.x == 0 && t > 0)
        reduceStagedDq(p, b, keySteps.head(t - 1, hk * group),
                       keySteps.row(t - 1), sDq);

      // P and dS, element by element; keys are rows, queries columns.
      Scores::applyKeyRows(p, mask, kBlockM, n0, kBlockN, n0 + keyRow0,
                           scoreCol0, sLse + stage * kBlockM,
                           sDelta + stage * kBlockM, s, dp);

      // P^T and dS^T as A fragments (k16 = 16 queries each).
#pragma unroll
      for (int kk = 0; kk < kScoreCols / 16; ++kk) {
        packP<Ops>(pA[kk], s, kk);
        packP<Ops>(dsA[kk], dp, kk);
      }
      // dS^T (and, shared by the warpgroups of the keys, P^T) to shared
      // memory, [keys][queries].
      if (kKeySplit > 1 || p.dq_accum)
        storeScores(sDS, keyRow0, scoreCol0, dsA);
      if constexpr (kKeySplit > 1) {
        storeScores(sP, keyRow0, scoreCol0, pA);
        // Every warpgroup's scores, written by the generic proxy, are read
        // by wgmma; the staged dQ is free once the reductions read it.
        fenceSharedForAsyncProxy();
        if (stageDq && threadIdx.x == 0)
          bulkWait<true>();
        __syncthreads();
      }

      // dV += P^T dO and dK += dS^T Q over the tile's queries, the
      // warpgroup's slice of the head dims.
      issueKeyGradients(dv, dk, pA, dsA, doCols, qCols, keyGroup, sP, sDS);
      if (p.dq_accum) {
        if constexpr (kKeySplit == 1) {
          // Every warpgroup's dS^T, written by the generic proxy, is read
          // by wgmma; the staged dQ is free once the reductions read it.
          fenceSharedForAsyncProxy();
          if (stageDq && threadIdx.x == 0)
            bulkWait<true>();
          __syncthreads();
        }
#pragma unroll
        for (int c = 0; c < kDqCols / kDqChunk; ++c) {
          const int col0 = dqd * kDqCols + c * kDqChunk;
          float dq[kDqChunk / 8][4];
          issueDq(dq, dsCols, kCols, c);
          wgmmaWait<0>();
          fenceAccumulators(dq);
          if constexpr (kStageDq) {
            stageDqChunk(sDq, dqm, col0, dq);
          } else {
            // (Computed here, not live beside dK, dV and dQ during the
            // product.)
            const i64 row0 =
                (static_cast<i64>(b) * p.heads_q + mask.h) * p.seq_q;
#pragma unroll
            for (int j = 0; j < kDqChunk / 8; ++j)
#pragma unroll
              for (int half = 0; half < 2; ++half) {
                const int row =
                    m0 + dqm * 64 + 16 * (warp % 4) + lane / 4 + half * 8;
                const int col = col0 + j * 8 + (lane % 4) * 2;
                if (row < p.seq_q)
                  reduceAddPair(p.dq_accum + (row0 + row) * kDimQK + col,
                                dq[j][2 * half], dq[j][2 * half + 1]);
              }
          }
        }
        // The staged dQ, written by the generic proxy, is read by the bulk
        // reductions (after the next barrier).
        if constexpr (kStageDq)
          fenceProxyAsyncShared();
      } else {
        wgmmaWait<0>();
      }
      fenceAccumulators(dk);
      fenceAccumulators(dv);
    }
    waitAsync<0>();
    if (stageDq && steps > 0) {
      // Every warp's last dQ staged; the block's shared memory lives until
      // its reductions are done.
      __syncthreads();
      if (threadIdx.x == 0) {
        reduceStagedDq(p, b, keySteps.head(steps - 1, hk * group),
                       keySteps.row(steps - 1), sDq);
        bulkWait<false>();
      }
    }

    storeKeyGradients<Ops, kDimQK, kDimV>(p, sequenceExtent<C>(p, b), b, hk,
                                          n0 + keyRow0, part * kSliceQK,
                                          part * kSliceV, dk, dv);
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
