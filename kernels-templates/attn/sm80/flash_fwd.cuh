// Forward flash attention for sm_80 and newer: mma.sync m16n8k16 with
// operands read by ldmatrix from padded shared tiles. Any head dim that is a
// multiple of 8, transposed K, and any warp count: each warp owns
// kBlockM / kNumWarps rows.
#pragma once
#include "attn/flash_fwd.cuh"

namespace attn {
namespace sm80 {

template <class C> struct Mma {
  using Ops = ElementOps<typename C::Element>;
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kDimQK = C::kHeadDimQK, kDimV = C::kHeadDimV;
  // Head dims padded to the mma k-step; the padding is zero in shared memory.
  static constexpr int kDimQKPad = (kDimQK + 15) / 16 * 16;
  static constexpr int kDimVPad = (kDimV + 15) / 16 * 16;
  // Row strides: one extra 16-byte chunk keeps ldmatrix free of conflicts.
  static constexpr int kStrideQ = kDimQKPad + 8;
  static constexpr int kStrideK = C::kTransposeK ? kBlockN + 8 : kDimQKPad + 8;
  static constexpr int kStrideV = kDimVPad + 8;
  static constexpr int kElemsQ = kBlockM * kStrideQ;
  static constexpr int kElemsK =
      C::kTransposeK ? kDimQKPad * kStrideK : kBlockN * kStrideK;
  static constexpr int kElemsV = kBlockN * kStrideV;
  static constexpr int kSharedBytes =
      2 * (kElemsQ + C::kStages * (kElemsK + kElemsV));

  static constexpr bool kAsyncProducts = false;
  static constexpr int kMTiles = kBlockM / C::kNumWarps / 16;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kOTiles = kDimVPad / 8;
  static_assert(kBlockM % (16 * C::kNumWarps) == 0,
                "each warp owns whole m16 tiles");
  static_assert(kBlockN % 16 == 0, "key tiles are whole k16 steps");

  u32 sQ, sK, sV; // shared addresses of the tiles
  // Per-lane ldmatrix addresses (bytes); the products add compile-time
  // offsets. A: rows of Q. B of S = Q K^T: rows of K (or of K^T,
  // transposed). B of O = P V: rows of V, transposed.
  u32 qLane, kLane, vLane;

  __device__ __forceinline__ explicit Mma(char *smemRaw) {
    u16 *q = reinterpret_cast<u16 *>(smemRaw);
    zeroPadding(q, q + kElemsQ, q + kElemsQ + C::kStages * kElemsK);
    sQ = sharedAddress(smemRaw);
    sK = sQ + 2 * kElemsQ;
    sV = sK + 2 * C::kStages * kElemsK;
    const int lane = threadIdx.x % 32;
    const int rowBase = threadIdx.x / 32 * (16 * kMTiles);
    qLane = sQ + 2 * ((rowBase + lane % 16) * kStrideQ + (lane / 16) * 8);
    kLane = sK + 2 * (C::kTransposeK
                          ? (lane % 8 + ((lane / 8) % 2) * 8) * kStrideK + (lane / 16) * 8
                          : (lane % 8 + (lane / 16) * 8) * kStrideK + ((lane / 8) % 2) * 8);
    vLane = sV + 2 * ((lane % 8 + ((lane / 8) % 2) * 8) * kStrideV + (lane / 16) * 8);
  }

  /// Zeroes the columns [from, to) of a [Rows][Stride] shared tile.
  template <int Rows, int Stride>
  static __device__ __forceinline__ void zeroColumns(u16 *smem, int from, int to) {
    int width = to - from;
    for (int i = threadIdx.x; i < Rows * width; i += kThreads)
      smem[(i / width) * Stride + from + i % width] = 0;
  }

  /// Padding columns of the head dims stay zero: cp.async never writes them.
  static __device__ __forceinline__ void zeroPadding(u16 *q, u16 *k, u16 *v) {
    if (kDimQKPad != kDimQK) {
      zeroColumns<kBlockM, kStrideQ>(q, kDimQK, kDimQKPad);
      for (int st = 0; st < C::kStages; ++st) {
        if (C::kTransposeK)
          zeroColumns<1, kElemsK>(k + st * kElemsK, kDimQK * kStrideK,
                                  kDimQKPad * kStrideK);
        else
          zeroColumns<kBlockN, kStrideK>(k + st * kElemsK, kDimQK, kDimQKPad);
      }
    }
    if (kDimVPad != kDimV)
      for (int st = 0; st < C::kStages; ++st)
        zeroColumns<kBlockN, kStrideV>(v + st * kElemsV, kDimV, kDimVPad);
  }

  __device__ __forceinline__ void loadQ(const u16 *q, i64 rowStride,
                                        int rowsValid) {
    loadTile<PaddedLayout<kStrideQ>, kBlockM, kDimQK, kThreads>(
        sQ, q, rowStride, rowsValid, kDimQK);
  }

  /// K rows (or, transposed, K^T rows of kBlockN keys) of one stage; keys
  /// >= keysValid read as zero.
  __device__ __forceinline__ void loadK(int stage, const u16 *k, i64 rowStride,
                                        int keysValid) {
    const u32 dst = sK + stage * (2 * kElemsK);
    if (C::kTransposeK)
      loadTile<PaddedLayout<kStrideK>, kDimQK, kBlockN, kThreads>(
          dst, k, rowStride, kDimQK, keysValid);
    else
      loadTile<PaddedLayout<kStrideK>, kBlockN, kDimQK, kThreads>(
          dst, k, rowStride, keysValid, kDimQK);
  }

  __device__ __forceinline__ void loadV(int stage, const u16 *v, i64 rowStride,
                                        int keysValid) {
    loadTile<PaddedLayout<kStrideV>, kBlockN, kDimV, kThreads>(
        sV + stage * (2 * kElemsV), v, rowStride, keysValid, kDimV);
  }

  /// Q rows at any addresses (packed rows of decode); rows >= rowsValid
  /// read as zero.
  template <class RowSource>
  __device__ __forceinline__ void loadQRows(const RowSource &rows,
                                            int rowsValid) {
    loadTileRows<PaddedLayout<kStrideQ>, kBlockM, kDimQK, kThreads>(
        sQ, rows, rowsValid, kDimQK);
  }

  /// K and V rows of one stage at any addresses (a paged cache's
  /// PageByPage or PagedRowLookup; K untransposed); keys >= keysValid read
  /// as zero.
  template <class RowSource>
  __device__ __forceinline__ void loadKRows(int stage, const RowSource &rows,
                                            int keysValid) {
    loadTileRows<PaddedLayout<kStrideK>, kBlockN, kDimQK, kThreads>(
        sK + stage * (2 * kElemsK), rows, keysValid, kDimQK);
  }
  template <class RowSource>
  __device__ __forceinline__ void loadVRows(int stage, const RowSource &rows,
                                            int keysValid) {
    loadTileRows<PaddedLayout<kStrideV>, kBlockN, kDimV, kThreads>(
        sV + stage * (2 * kElemsV), rows, keysValid, kDimV);
  }

  /// mma.sync reads shared memory like ordinary loads: the barrier suffices.
  __device__ __forceinline__ void tileLanded() {}

  // mma.sync is synchronous: a product is done when its call returns.
  __device__ __forceinline__ void scoresDone(float (&)[kMTiles][kNTiles][4],
                                             bool) const {}
  __device__ __forceinline__ void accumulateDone(float (&)[kMTiles][kOTiles][4]) const {}

  __device__ __forceinline__ void scores(float (&s)[kMTiles][kNTiles][4],
                                         int stage) const {
    const u32 tK = kLane + stage * (2 * kElemsK);
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int j = 0; j < kNTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          s[mt][j][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < kDimQKPad / 16; ++kk) {
      u32 a[kMTiles][4];
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
        loadMatrixX4(a[mt], qLane + 2 * (mt * 16 * kStrideQ + kk * 16));
#pragma unroll
      for (int j = 0; j < kNTiles; j += 2) {
        u32 bf[4];
        if (C::kTransposeK)
          loadMatrixX4Trans(bf, tK + 2 * (kk * 16 * kStrideK + j * 8));
        else
          loadMatrixX4(bf, tK + 2 * (j * 8 * kStrideK + kk * 16));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          Ops::mma(s[mt][j], a[mt], bf[0], bf[1]);
          Ops::mma(s[mt][j + 1], a[mt], bf[2], bf[3]);
        }
      }
    }
  }

  __device__ __forceinline__ void
  accumulate(float (&o)[kMTiles][kOTiles][4],
             const u32 (&p)[kMTiles][kBlockN / 16][4], int stage) const {
    const u32 tV = vLane + stage * (2 * kElemsV);
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
#pragma unroll
      for (int d = 0; d < kOTiles; d += 2) {
        u32 bf[4];
        loadMatrixX4Trans(bf, tV + 2 * (kk * 16 * kStrideV + d * 8));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          Ops::mma(o[mt][d], p[mt][kk], bf[0], bf[1]);
          Ops::mma(o[mt][d + 1], p[mt][kk], bf[2], bf[3]);
        }
      }
    }
  }
};

template <class C> using FlashForward = attn::FlashForward<C, Mma<C>>;

} // namespace sm80
} // namespace attn
