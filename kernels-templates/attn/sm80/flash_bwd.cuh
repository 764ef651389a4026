// Backward flash attention for sm_80 and newer: mma.sync m16n8k16 with
// operands read by ldmatrix from padded shared tiles (the layout of
// sm80/flash_fwd.cuh); any head dims that are multiples of 8 up to 256.
//
// FlashBackwardKV: a block owns kBlockN keys of one (batch, K/V head) and
// sweeps the query tiles of every query head of that K/V head, kBlockM rows
// at a time, through a kStages-deep (1 or 2) cp.async pipeline of Q, dO,
// logsumexp and D. Each warp owns 16 keys and computes S^T = K Q^T and
// dP^T = V dO^T for them, so that P^T and dS^T come out of the accumulators
// with keys as rows: the A operands of dV += P^T dO and dK += dS^T Q, in
// registers. When several warps share 16 keys (kNumWarps > kBlockN / 16)
// they split the query tile for S^T and the head dims of dK and dV, and P^T
// goes through shared memory. dS^T always does (as the A operand of
// dQ = dS K, by ldmatrix.trans), and dQ / scale is added to an f32 sum with
// atomics, unless the launch is deterministic.
//
// FlashBackwardQ (deterministic mode): a block owns kBlockM query rows of
// one (batch, query head), a warp 16 of them, and sweeps the key tiles like
// the forward, recomputing S and dP: dQ accumulates in registers in a fixed
// order, and no atomics are used anywhere.
//
// Ragged batches (kVarlen): both grids' x enumerates the tiles of every
// sequence (sequenceTile, flash_bwd.cuh), and each block works in its
// sequence's rows.
#pragma once
#include "attn/flash_bwd.cuh"

namespace attn {
namespace sm80 {

/// Shared tile geometry both backward kernels use.
template <class C> struct BackwardTiles {
  static constexpr int kDimQK = C::kHeadDimQK, kDimV = C::kHeadDimV;
  // Head dims padded to the mma k-step; the padding is zero in shared memory.
  static constexpr int kDimQKPad = (kDimQK + 15) / 16 * 16;
  static constexpr int kDimVPad = (kDimV + 15) / 16 * 16;
  // One extra 16-byte chunk per row keeps ldmatrix free of bank conflicts.
  static constexpr int kStrideQK = kDimQKPad + 8, kStrideV = kDimVPad + 8;

  /// Zeroes the padding columns [kDim, kDimPad) of a [Rows][Stride] tile.
  template <int Rows, int Stride, int Dim, int DimPad, int Threads>
  static __device__ __forceinline__ void zeroPadding(u16 *tile) {
    constexpr int width = DimPad - Dim;
    if constexpr (width > 0)
      for (int i = threadIdx.x; i < Rows * width; i += Threads)
        tile[(i / width) * Stride + Dim + i % width] = 0;
  }

  // ldmatrix addressing, per lane, in elements from a tile's start:
  /// A (16 rows x 16 k) from [rows][k] storage.
  static __device__ __forceinline__ int aRowMajor(int lane, int stride) {
    return (lane % 16) * stride + (lane / 16) * 8;
  }
  /// A (16 rows x 16 k) from [k][rows] storage (ldmatrix.trans).
  static __device__ __forceinline__ int aColMajor(int lane, int stride) {
    return (lane % 8 + (lane / 16) * 8) * stride + ((lane / 8) % 2) * 8;
  }
  /// B of two n8 tiles (16 k x 16 n) from [n][k] storage.
  static __device__ __forceinline__ int bRowsN(int lane, int stride) {
    return (lane % 8 + (lane / 16) * 8) * stride + ((lane / 8) % 2) * 8;
  }
  /// B of two n8 tiles (16 k x 16 n) from [k][n] storage (ldmatrix.trans).
  static __device__ __forceinline__ int bRowsK(int lane, int stride) {
    return (lane % 8 + ((lane / 8) % 2) * 8) * stride + (lane / 16) * 8;
  }
};

/// acc[t] += a * B for the n8 tiles t of B, B read with ldmatrix.trans
/// from [k][n] storage at `b` (bytes; tile t at +16 t). An odd last tile
/// takes an x2 load.
template <class Ops, int Tiles>
__device__ __forceinline__ void mmaTilesRowsK(float (&acc)[Tiles][4],
                                              const u32 (&a)[4], u32 b) {
#pragma unroll
  for (int t = 0; t < Tiles; t += 2) {
    if (t + 1 < Tiles) {
      u32 bf[4];
      loadMatrixX4Trans(bf, b + 16 * t);
      Ops::mma(acc[t], a, bf[0], bf[1]);
      Ops::mma(acc[t + 1], a, bf[2], bf[3]);
    } else {
      u32 bf[2];
      loadMatrixX2Trans(bf, b + 16 * t);
      Ops::mma(acc[t], a, bf[0], bf[1]);
    }
  }
}

template <class C> struct FlashBackwardKV {
  using Ops = ElementOps<typename C::Element>;
  using Scores = BackwardScores<C>;
  using Tiles = BackwardTiles<C>;
  using DqAccum = RowMajorDqAccum<C>;
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kStages = C::kStages;
  static constexpr int kDimQKPad = Tiles::kDimQKPad, kDimVPad = Tiles::kDimVPad;
  static constexpr int kStrideQK = Tiles::kStrideQK, kStrideV = Tiles::kStrideV;
  static constexpr int kStrideS = kBlockM + 8; // [keys][queries] of P and dS
  // Warps: 16 keys each; kWarpsD of them share those keys.
  static constexpr int kWarpsN = kBlockN / 16;
  static constexpr int kWarpsD = C::kNumWarps / kWarpsN;
  static constexpr int kQCols = kBlockM / kWarpsD, kSTiles = kQCols / 8;
  static constexpr int kDkCols = kDimQKPad / kWarpsD, kDkTiles = kDkCols / 8;
  static constexpr int kDvCols = kDimVPad / kWarpsD, kDvTiles = kDvCols / 8;
  // dQ = dS K: warps along the queries (whole m16 tiles) and the head dim.
  static constexpr int kDqWarpsM =
      C::kNumWarps < kBlockM / 16 ? C::kNumWarps : kBlockM / 16;
  static constexpr int kDqMTiles = kBlockM / 16 / kDqWarpsM;
  static constexpr int kDqWarpsD = C::kNumWarps / kDqWarpsM;
  static constexpr int kDqCols = kDimQKPad / kDqWarpsD, kDqTiles = kDqCols / 8;
  // dQ is computed and added in chunks of at most 8 n8 tiles per warp, so
  // that its registers do not grow with the head dim.
  static constexpr int dqChunk(int tiles) {
    int chunk = tiles < 8 ? tiles : 8;
    while (tiles % chunk)
      --chunk;
    return chunk;
  }
  static constexpr int kDqChunk = dqChunk(kDqTiles);
  static constexpr bool kPInShared = kWarpsD > 1;

  static constexpr int kElemsK = kBlockN * kStrideQK, kElemsV = kBlockN * kStrideV;
  static constexpr int kElemsQ = kBlockM * kStrideQK, kElemsDO = kBlockM * kStrideV;
  static constexpr int kElemsS = kBlockN * kStrideS;
  static constexpr int kSharedBytes =
      2 * (kElemsK + kElemsV + kStages * (kElemsQ + kElemsDO) +
           kElemsS * (kPInShared ? 2 : 1)) +
      8 * kStages * kBlockM;

  static_assert(kBlockN % 16 == 0 && C::kNumWarps % kWarpsN == 0,
                "each warp owns 16 keys");
  static_assert(kQCols % 16 == 0, "warps split the queries in m16 tiles");
  static_assert(kDkCols % 8 == 0 && kDvCols % 8 == 0 && kDqCols % 8 == 0,
                "warps split the head dims in n8 tiles");
  static_assert(kBlockM % (16 * kDqWarpsM) == 0, "dQ rows in whole m16 tiles");
  static_assert(kStages == 1 || kStages == 2, "one or two Q/dO stages");

  static __device__ void run(const FlashBwdParams &p, char *smemRaw) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wn = warp / kWarpsD, wd = warp % kWarpsD;
    const int dqm = warp % kDqWarpsM, dqd = warp / kDqWarpsM;
    // A block of keys of one (batch, K/V head); x is the fastest grid
    // index, so the first keys (which positional masks let the most queries
    // see) start first. (A TileSchedule decode here cost 12 registers.)
    int b, keyBlock;
    if (!sequenceTile<C>(p, p.cu_seqlens_k, p.seq_kv, kBlockN, b, keyBlock))
      return;
    const int n0 = keyBlock * kBlockN, hk = blockIdx.y;
    const int group = p.heads_q / p.heads_kv;
    const SequenceExtent seq = sequenceExtent<C>(p, b);

    u16 *sK = reinterpret_cast<u16 *>(smemRaw);
    u16 *sV = sK + kElemsK, *sQ = sV + kElemsV;
    u16 *sDO = sQ + kStages * kElemsQ, *sDS = sDO + kStages * kElemsDO;
    u16 *sP = sDS + kElemsS;
    float *sLse = reinterpret_cast<float *>(sDS + kElemsS * (kPInShared ? 2 : 1));
    float *sDelta = sLse + kStages * kBlockM;
    Tiles::template zeroPadding<kBlockN, kStrideQK, C::kHeadDimQK, kDimQKPad, kThreads>(sK);
    Tiles::template zeroPadding<kBlockN, kStrideV, C::kHeadDimV, kDimVPad, kThreads>(sV);
#pragma unroll
    for (int st = 0; st < kStages; ++st) {
      Tiles::template zeroPadding<kBlockM, kStrideQK, C::kHeadDimQK, kDimQKPad, kThreads>(
          sQ + st * kElemsQ);
      Tiles::template zeroPadding<kBlockM, kStrideV, C::kHeadDimV, kDimVPad, kThreads>(
          sDO + st * kElemsDO);
    }

    const KeyBlockSteps<C, kBlockM, kBlockN> keySteps(p, b, hk, group, n0);
    const int steps = keySteps.steps, keysValid = keySteps.keysValid;
    loadTile<PaddedLayout<kStrideQK>, kBlockN, C::kHeadDimQK, kThreads>(
        sharedAddress(sK),
        static_cast<const u16 *>(p.k) + b * p.k_strides[0] + hk * p.k_strides[1] +
            static_cast<i64>(seq.kStart + n0) * p.k_strides[2],
        p.k_strides[2], keysValid, C::kHeadDimQK);
    loadTile<PaddedLayout<kStrideV>, kBlockN, C::kHeadDimV, kThreads>(
        sharedAddress(sV),
        static_cast<const u16 *>(p.v) + b * p.v_strides[0] + hk * p.v_strides[1] +
            static_cast<i64>(seq.kStart + n0) * p.v_strides[2],
        p.v_strides[2], keysValid, C::kHeadDimV);

    auto loadStep = [&](int t, int stage) {
      const int h = keySteps.head(t, hk * group), m0 = keySteps.row(t);
      loadTile<PaddedLayout<kStrideQK>, kBlockM, C::kHeadDimQK, kThreads>(
          sharedAddress(sQ + stage * kElemsQ),
          static_cast<const u16 *>(p.q) + b * p.q_strides[0] + h * p.q_strides[1] +
              static_cast<i64>(seq.qStart + m0) * p.q_strides[2],
          p.q_strides[2], seq.seqQ - m0, C::kHeadDimQK);
      loadTile<PaddedLayout<kStrideV>, kBlockM, C::kHeadDimV, kThreads>(
          sharedAddress(sDO + stage * kElemsDO),
          static_cast<const u16 *>(p.dout) + b * p.dout_strides[0] +
              h * p.dout_strides[1] +
              static_cast<i64>(seq.qStart + m0) * p.dout_strides[2],
          p.dout_strides[2], seq.seqQ - m0, C::kHeadDimV);
      const i64 row0 = rowStatIndex<C>(p, b, h, seq.qStart, m0);
      for (int i = threadIdx.x; i < kBlockM; i += kThreads) {
        const bool valid = m0 + i < seq.seqQ;
        copyAsync4(sharedAddress(sLse + stage * kBlockM + i),
                   valid ? p.lse + row0 + i : p.lse, valid ? 4 : 0);
        copyAsync4(sharedAddress(sDelta + stage * kBlockM + i),
                   valid ? p.delta + row0 + i : p.delta, valid ? 4 : 0);
      }
    };

    // Per-lane ldmatrix addresses (bytes).
    const u32 kA = sharedAddress(sK + Tiles::aRowMajor(lane, kStrideQK) +
                                 16 * wn * kStrideQK);
    const u32 vA = sharedAddress(sV + Tiles::aRowMajor(lane, kStrideV) +
                                 16 * wn * kStrideV);
    const u32 qB = sharedAddress(sQ + Tiles::bRowsN(lane, kStrideQK) +
                                 wd * kQCols * kStrideQK);
    const u32 doB = sharedAddress(sDO + Tiles::bRowsN(lane, kStrideV) +
                                  wd * kQCols * kStrideV);
    const u32 qT = sharedAddress(sQ + Tiles::bRowsK(lane, kStrideQK) + wd * kDkCols);
    const u32 doT = sharedAddress(sDO + Tiles::bRowsK(lane, kStrideV) + wd * kDvCols);
    const u32 pA = sharedAddress(sP + Tiles::aRowMajor(lane, kStrideS) +
                                 16 * wn * kStrideS);
    const u32 dsA = sharedAddress(sDS + Tiles::aRowMajor(lane, kStrideS) +
                                  16 * wn * kStrideS);
    const u32 dsT = sharedAddress(sDS + Tiles::aColMajor(lane, kStrideS) +
                                  dqm * kDqMTiles * 16);
    const u32 kT = sharedAddress(sK + Tiles::bRowsK(lane, kStrideQK) + dqd * kDqCols);

    float dk[kDkTiles][4], dv[kDvTiles][4];
    zeroFragments(dk);
    zeroFragments(dv);

    // Each step's stage, dS and P are free once every warp is past the
    // step before.
    using Pipeline = StepPipeline<kStages>;
    Pipeline::start(steps, loadStep);
    for (int t = 0; t < steps; ++t) {
      const int stage = Pipeline::begin(t, steps, loadStep, [] {});

      const int m0 = keySteps.row(t);
      const Mask<C> mask(p, b, keySteps.head(t, hk * group), m0, kBlockM);
      float s[kSTiles][4], dp[kSTiles][4];
#pragma unroll
      for (int j = 0; j < kSTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          s[j][e] = dp[j][e] = 0.f;
      // S^T = K Q^T and dP^T = V dO^T for the warp's keys and queries.
      const u32 qStage = qB + stage * (2 * kElemsQ);
#pragma unroll
      for (int kk = 0; kk < kDimQKPad / 16; ++kk) {
        u32 a[4];
        loadMatrixX4(a, kA + 2 * (kk * 16));
#pragma unroll
        for (int j = 0; j < kSTiles; j += 2) {
          u32 bf[4];
          loadMatrixX4(bf, qStage + 2 * (j * 8 * kStrideQK + kk * 16));
          Ops::mma(s[j], a, bf[0], bf[1]);
          Ops::mma(s[j + 1], a, bf[2], bf[3]);
        }
      }
      const u32 doStage = doB + stage * (2 * kElemsDO);
#pragma unroll
      for (int kk = 0; kk < kDimVPad / 16; ++kk) {
        u32 a[4];
        loadMatrixX4(a, vA + 2 * (kk * 16));
#pragma unroll
        for (int j = 0; j < kSTiles; j += 2) {
          u32 bf[4];
          loadMatrixX4(bf, doStage + 2 * (j * 8 * kStrideV + kk * 16));
          Ops::mma(dp[j], a, bf[0], bf[1]);
          Ops::mma(dp[j + 1], a, bf[2], bf[3]);
        }
      }

      // P and dS, element by element; keys are rows, queries columns.
      Scores::applyKeyRows(p, mask, kBlockM, n0, kBlockN, n0 + 16 * wn, wd * kQCols,
                           sLse + stage * kBlockM, sDelta + stage * kBlockM, s,
                           dp);
      // dS^T (and P^T) to shared memory, [keys][queries].
      if (kPInShared || p.dq_accum) {
#pragma unroll
        for (int j = 0; j < kSTiles; ++j)
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int row = 16 * wn + lane / 4 + half * 8;
            const int col = wd * kQCols + j * 8 + (lane % 4) * 2;
            *reinterpret_cast<u32 *>(sDS + row * kStrideS + col) =
                Ops::pack(dp[j][2 * half], dp[j][2 * half + 1]);
            if (kPInShared)
              *reinterpret_cast<u32 *>(sP + row * kStrideS + col) =
                  Ops::pack(s[j][2 * half], s[j][2 * half + 1]);
          }
        __syncthreads();
      }

      // dV += P^T dO and dK += dS^T Q over the tile's queries.
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        u32 a[4];
        if (kPInShared)
          loadMatrixX4(a, pA + 2 * (kk * 16));
        else
          packP<Ops>(a, s, kk);
        mmaTilesRowsK<Ops, kDvTiles>(
            dv, a, doT + stage * (2 * kElemsDO) + 2 * (kk * 16 * kStrideV));
        if (kPInShared)
          loadMatrixX4(a, dsA + 2 * (kk * 16));
        else
          packP<Ops>(a, dp, kk);
        mmaTilesRowsK<Ops, kDkTiles>(
            dk, a, qT + stage * (2 * kElemsQ) + 2 * (kk * 16 * kStrideQK));
      }

      // dQ / scale += dS K, added to the f32 sum.
      if (p.dq_accum) {
        const i64 row0 = rowStatIndex<C>(p, b, mask.h, seq.qStart, 0);
#pragma unroll 1
        for (int c = 0; c < kDqTiles; c += kDqChunk) {
          float dq[kDqMTiles][kDqChunk][4];
#pragma unroll
          for (int mt = 0; mt < kDqMTiles; ++mt)
#pragma unroll
            for (int t = 0; t < kDqChunk; ++t)
#pragma unroll
              for (int e = 0; e < 4; ++e)
                dq[mt][t][e] = 0.f;
#pragma unroll
          for (int kk = 0; kk < kBlockN / 16; ++kk)
#pragma unroll
            for (int mt = 0; mt < kDqMTiles; ++mt) {
              u32 a[4];
              loadMatrixX4Trans(a, dsT + 2 * (kk * 16 * kStrideS + mt * 16));
              mmaTilesRowsK<Ops, kDqChunk>(
                  dq[mt], a, kT + 2 * (kk * 16 * kStrideQK + c * 8));
            }
          // Column pairs: the head dims are even.
#pragma unroll
          for (int mt = 0; mt < kDqMTiles; ++mt)
#pragma unroll
            for (int t = 0; t < kDqChunk; ++t)
#pragma unroll
              for (int half = 0; half < 2; ++half) {
                const int row =
                    m0 + (dqm * kDqMTiles + mt) * 16 + lane / 4 + half * 8;
                const int col = dqd * kDqCols + (c + t) * 8 + (lane % 4) * 2;
                if (row < seq.seqQ && col < C::kHeadDimQK)
                  reduceAddPair(p.dq_accum + (row0 + row) * C::kHeadDimQK + col,
                                dq[mt][t][2 * half], dq[mt][t][2 * half + 1]);
              }
        }
      }
    }
    waitAsync<0>();

    storeKeyGradients<Ops, C::kHeadDimQK, C::kHeadDimV>(
        p, seq, b, hk, n0 + 16 * wn, wd * kDkCols, wd * kDvCols, dk, dv);
  }
};

template <class C> struct FlashBackwardQ {
  using Ops = ElementOps<typename C::Element>;
  using Scores = BackwardScores<C>;
  using Tiles = BackwardTiles<C>;
  static constexpr int kBlockM = C::kBlockM;
  // Key tiles of 16 over head dim 128: dQ and the operands of several key
  // steps would not fit in registers (dqBlockN in KernelVariants.cpp).
  static constexpr int kBlockN = (C::kHeadDimQK + 15) / 16 * 16 > 128 ? 16 : C::kBlockN;
  static constexpr int kNumWarps = kBlockM / 16; // 16 query rows each
  static constexpr int kThreads = kNumWarps * 32;
  static constexpr int kStages = C::kStages;
  static constexpr int kDimQKPad = Tiles::kDimQKPad, kDimVPad = Tiles::kDimVPad;
  static constexpr int kStrideQK = Tiles::kStrideQK, kStrideV = Tiles::kStrideV;
  static constexpr int kNTiles = kBlockN / 8, kDqTiles = kDimQKPad / 8;
  static constexpr int kElemsQ = kBlockM * kStrideQK, kElemsDO = kBlockM * kStrideV;
  static constexpr int kElemsK = kBlockN * kStrideQK, kElemsV = kBlockN * kStrideV;
  static constexpr int kSharedBytes =
      2 * (kElemsQ + kElemsDO + kStages * (kElemsK + kElemsV));

  static_assert(kBlockM % 16 == 0 && kNumWarps <= 8, "a warp per 16 rows");
  static_assert(kBlockN % 16 == 0, "key tiles are whole k16 steps");
  // Its K/V pipeline knows one or two stages; with three it loaded nothing
  // (bench/NOTES.md, step 47).
  static_assert(kStages == 1 || kStages == 2, "one or two K/V stages");

  static __device__ void run(const FlashBwdParams &p, char *smemRaw) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // A block of queries of one (batch, query head). (A TileSchedule decode
    // here cost 40 registers and spilled.)
    int b, queryBlock;
    if (!sequenceTile<C>(p, p.cu_seqlens_q, p.seq_q, kBlockM, b, queryBlock))
      return;
    const int m0 = queryBlock * kBlockM, h = blockIdx.y;
    const int hk = h / (p.heads_q / p.heads_kv);
    const SequenceExtent seq = sequenceExtent<C>(p, b);

    u16 *sQ = reinterpret_cast<u16 *>(smemRaw);
    u16 *sDO = sQ + kElemsQ, *sK = sDO + kElemsDO;
    u16 *sV = sK + kStages * kElemsK;
    Tiles::template zeroPadding<kBlockM, kStrideQK, C::kHeadDimQK, kDimQKPad, kThreads>(sQ);
    Tiles::template zeroPadding<kBlockM, kStrideV, C::kHeadDimV, kDimVPad, kThreads>(sDO);
#pragma unroll
    for (int st = 0; st < kStages; ++st) {
      Tiles::template zeroPadding<kBlockN, kStrideQK, C::kHeadDimQK, kDimQKPad, kThreads>(
          sK + st * kElemsK);
      Tiles::template zeroPadding<kBlockN, kStrideV, C::kHeadDimV, kDimVPad, kThreads>(
          sV + st * kElemsV);
    }

    const Mask<C> mask(p, b, h, m0, kBlockM);
    int tileBegin, tileEnd;
    mask.keyTiles(p, kBlockN, 0, 1, tileBegin, tileEnd);
    const int numTiles = tileEnd - tileBegin;

    loadTile<PaddedLayout<kStrideQK>, kBlockM, C::kHeadDimQK, kThreads>(
        sharedAddress(sQ),
        static_cast<const u16 *>(p.q) + b * p.q_strides[0] + h * p.q_strides[1] +
            static_cast<i64>(seq.qStart + m0) * p.q_strides[2],
        p.q_strides[2], seq.seqQ - m0, C::kHeadDimQK);
    loadTile<PaddedLayout<kStrideV>, kBlockM, C::kHeadDimV, kThreads>(
        sharedAddress(sDO),
        static_cast<const u16 *>(p.dout) + b * p.dout_strides[0] +
            h * p.dout_strides[1] +
            static_cast<i64>(seq.qStart + m0) * p.dout_strides[2],
        p.dout_strides[2], seq.seqQ - m0, C::kHeadDimV);
    const u16 *k = static_cast<const u16 *>(p.k) + b * p.k_strides[0] +
                   hk * p.k_strides[1] + static_cast<i64>(seq.kStart) * p.k_strides[2];
    const u16 *v = static_cast<const u16 *>(p.v) + b * p.v_strides[0] +
                   hk * p.v_strides[1] + static_cast<i64>(seq.kStart) * p.v_strides[2];
    auto loadStep = [&](int i, int stage) {
      const int n0 = (tileBegin + i) * kBlockN;
      loadTile<PaddedLayout<kStrideQK>, kBlockN, C::kHeadDimQK, kThreads>(
          sharedAddress(sK + stage * kElemsK), k + static_cast<i64>(n0) * p.k_strides[2],
          p.k_strides[2], mask.kvEnd - n0, C::kHeadDimQK);
      loadTile<PaddedLayout<kStrideV>, kBlockN, C::kHeadDimV, kThreads>(
          sharedAddress(sV + stage * kElemsV), v + static_cast<i64>(n0) * p.v_strides[2],
          p.v_strides[2], mask.kvEnd - n0, C::kHeadDimV);
    };

    // The logsumexp (base 2) and D of the lane's two rows.
    float lseLog2[2], delta[2];
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = m0 + warp * 16 + lane / 4 + half * 8;
      const i64 index = rowStatIndex<C>(p, b, h, seq.qStart, row);
      lseLog2[half] = row < seq.seqQ ? p.lse[index] * kLog2e : negInf();
      delta[half] = row < seq.seqQ ? p.delta[index] : 0.f;
    }

    const u32 qA = sharedAddress(sQ + Tiles::aRowMajor(lane, kStrideQK) +
                                 warp * 16 * kStrideQK);
    const u32 doA = sharedAddress(sDO + Tiles::aRowMajor(lane, kStrideV) +
                                  warp * 16 * kStrideV);
    const u32 kB = sharedAddress(sK + Tiles::bRowsN(lane, kStrideQK));
    const u32 vB = sharedAddress(sV + Tiles::bRowsN(lane, kStrideV));
    const u32 kT = sharedAddress(sK + Tiles::bRowsK(lane, kStrideQK));

    float dq[kDqTiles][4];
#pragma unroll
    for (int t = 0; t < kDqTiles; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        dq[t][e] = 0.f;

    if (kStages == 2 && numTiles > 0)
      loadStep(0, 0);
    commitAsync();
    for (int i = 0; i < numTiles; ++i) {
      const int stage = kStages == 2 ? i % 2 : 0;
      if (kStages == 1) {
        if (i > 0)
          __syncthreads();
        loadStep(i, 0);
        commitAsync();
      }
      waitAsync<0>();
      __syncthreads();
      if (kStages == 2 && i + 1 < numTiles) {
        loadStep(i + 1, (i + 1) % 2);
        commitAsync();
      }
      const int n0 = (tileBegin + i) * kBlockN;
      float s[kNTiles][4], dp[kNTiles][4];
#pragma unroll
      for (int j = 0; j < kNTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          s[j][e] = dp[j][e] = 0.f;
      const u32 kStage = kB + stage * (2 * kElemsK), vStage = vB + stage * (2 * kElemsV);
#pragma unroll
      for (int kk = 0; kk < kDimQKPad / 16; ++kk) {
        u32 a[4];
        loadMatrixX4(a, qA + 2 * (kk * 16));
#pragma unroll
        for (int j = 0; j < kNTiles; j += 2) {
          u32 bf[4];
          loadMatrixX4(bf, kStage + 2 * (j * 8 * kStrideQK + kk * 16));
          Ops::mma(s[j], a, bf[0], bf[1]);
          Ops::mma(s[j + 1], a, bf[2], bf[3]);
        }
      }
#pragma unroll
      for (int kk = 0; kk < kDimVPad / 16; ++kk) {
        u32 a[4];
        loadMatrixX4(a, doA + 2 * (kk * 16));
#pragma unroll
        for (int j = 0; j < kNTiles; j += 2) {
          u32 bf[4];
          loadMatrixX4(bf, vStage + 2 * (j * 8 * kStrideV + kk * 16));
          Ops::mma(dp[j], a, bf[0], bf[1]);
          Ops::mma(dp[j + 1], a, bf[2], bf[3]);
        }
      }
      Scores::forTile(p, mask, kBlockM, n0, kBlockN, [&](auto indexed) {
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int q = m0 + warp * 16 + lane / 4 + (e / 2) * 8;
            const int key = n0 + j * 8 + (lane % 4) * 2 + e % 2;
            // The K/V-stationary kernel writes the bias gradient.
            Scores::template apply<decltype(indexed)::value, false>(
                p, mask, q, key, lseLog2[e / 2], delta[e / 2], s[j][e],
                dp[j][e]);
          }
      });
      // dQ / scale += dS K, dS packed from its accumulators.
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        u32 a[4];
        packP<Ops>(a, dp, kk);
        mmaTilesRowsK<Ops, kDqTiles>(
            dq, a, kT + stage * (2 * kElemsK) + 2 * (kk * 16 * kStrideQK));
      }
    }
    waitAsync<0>();

#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = m0 + warp * 16 + lane / 4 + half * 8;
      if (row >= seq.seqQ)
        continue;
      u16 *dqRow = static_cast<u16 *>(p.dq) + b * p.dq_strides[0] +
                   h * p.dq_strides[1] +
                   static_cast<i64>(seq.qStart + row) * p.dq_strides[2];
#pragma unroll
      for (int t = 0; t < kDqTiles; ++t) {
        const int col = t * 8 + (lane % 4) * 2;
        if (col < C::kHeadDimQK)
          *reinterpret_cast<u32 *>(dqRow + col) =
              Ops::pack(dq[t][2 * half] * p.scale, dq[t][2 * half + 1] * p.scale);
      }
    }
  }
};

} // namespace sm80
} // namespace attn
