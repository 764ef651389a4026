// Forward flash attention for sm_90a: wgmma. Each warpgroup (4 warps) owns
// 64 query rows; S = Q K^T reads Q and K from 128-byte-swizzled shared tiles
// (K-major), O += P V takes P from registers and V from shared memory
// (MN-major). Head dims are whole 64-column swizzle blocks; K is not
// transposed (other shapes use the sm80 variant).
#pragma once
#include "attn/flash_fwd.cuh"
#include "attn/sm90/wgmma.cuh"

namespace attn {
namespace sm90 {

template <class C> struct Mma {
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kDimQK = C::kHeadDimQK, kDimV = C::kHeadDimV;
  static constexpr int kBytesQ = 2 * kBlockM * kDimQK;
  static constexpr int kBytesK = 2 * kBlockN * kDimQK;
  static constexpr int kBytesV = 2 * kBlockN * kDimV;
  // The slack lets the tiles start on the swizzle's 1024-byte period.
  static constexpr int kSharedBytes =
      kBytesQ + C::kStages * (kBytesK + kBytesV) + 1024;

  static constexpr bool kAsyncProducts = true;
  static constexpr int kMTiles = 1;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kOTiles = kDimV / 8;
  static_assert(C::kNumWarps % 4 == 0 && kBlockM == 16 * C::kNumWarps,
                "each warpgroup owns 64 rows");
  static_assert(kDimQK % 64 == 0 && kDimV % 64 == 0,
                "head dims are whole 64-column swizzle blocks");
  static_assert(!C::kTransposeK, "K^T tiles would need MN-major K");

  using Product = Wgmma<typename C::Element, kBlockN>;
  using Update = Wgmma<typename C::Element, kDimV>;

  u32 sQ, sK, sV; // shared addresses, 1024-byte aligned

  __device__ __forceinline__ explicit Mma(char *smemRaw) {
    sQ = (sharedAddress(smemRaw) + 1023) & ~1023u;
    sK = sQ + kBytesQ;
    sV = sK + C::kStages * kBytesK;
  }

  __device__ __forceinline__ void loadQ(const u16 *q, i64 rowStride,
                                        int rowsValid) {
    loadTile<Swizzle128Layout<kBlockM>, kBlockM, kDimQK, kThreads>(
        sQ, q, rowStride, rowsValid, kDimQK);
  }

  __device__ __forceinline__ void loadK(int stage, const u16 *k, i64 rowStride,
                                        int keysValid) {
    loadTile<Swizzle128Layout<kBlockN>, kBlockN, kDimQK, kThreads>(
        sK + stage * kBytesK, k, rowStride, keysValid, kDimQK);
  }

  __device__ __forceinline__ void loadV(int stage, const u16 *v, i64 rowStride,
                                        int keysValid) {
    loadTile<Swizzle128Layout<kBlockN>, kBlockN, kDimV, kThreads>(
        sV + stage * kBytesV, v, rowStride, keysValid, kDimV);
  }

  /// Q rows at any addresses (packed rows of decode); rows >= rowsValid
  /// read as zero.
  template <class RowSource>
  __device__ __forceinline__ void loadQRows(const RowSource &rows,
                                            int rowsValid) {
    loadTileRows<Swizzle128Layout<kBlockM>, kBlockM, kDimQK, kThreads>(
        sQ, rows, rowsValid, kDimQK);
  }

  /// K and V rows of one stage at any addresses (a paged cache's
  /// PageByPage or PagedRowLookup); keys >= keysValid read as zero.
  template <class RowSource>
  __device__ __forceinline__ void loadKRows(int stage, const RowSource &rows,
                                            int keysValid) {
    loadTileRows<Swizzle128Layout<kBlockN>, kBlockN, kDimQK, kThreads>(
        sK + stage * kBytesK, rows, keysValid, kDimQK);
  }
  template <class RowSource>
  __device__ __forceinline__ void loadVRows(int stage, const RowSource &rows,
                                            int keysValid) {
    loadTileRows<Swizzle128Layout<kBlockN>, kBlockN, kDimV, kThreads>(
        sV + stage * kBytesV, rows, keysValid, kDimV);
  }

  __device__ __forceinline__ void tileLanded() { fenceSharedForAsyncProxy(); }

  /// S = Q K^T: one 64 x kBlockN x 16 step per 16 columns of the head dim,
  /// stepping 32 bytes inside a swizzled 128-byte row (the hardware applies
  /// the swizzle to the computed addresses).
  __device__ __forceinline__ void scores(float (&s)[1][kNTiles][4],
                                         int stage) const {
    const u32 warpgroupRows = threadIdx.x / 128 * 64;
    const u64 q = sharedDescriptor(sQ + warpgroupRows * 128, 16, 1024);
    const u64 k = sharedDescriptor(sK + stage * kBytesK, 16, 1024);
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kDimQK / 16; ++kk) {
      const u32 qOffset = (kk / 4) * (kBlockM * 128) + (kk % 4) * 32;
      const u32 kOffset = (kk / 4) * (kBlockN * 128) + (kk % 4) * 32;
      if (kk == 0)
        Product::template ss<0>(s[0], q + (qOffset >> 4), k + (kOffset >> 4));
      else
        Product::template ss<1>(s[0], q + (qOffset >> 4), k + (kOffset >> 4));
    }
    wgmmaCommit();
  }

  /// With an accumulate started after the scores, the scores are the older
  /// of two wgmma groups in flight.
  __device__ __forceinline__ void scoresDone(float (&s)[1][kNTiles][4],
                                             bool updatePending) const {
    if (updatePending)
      wgmmaWait<1>();
    else
      wgmmaWait<0>();
    fenceAccumulators(s[0]);
  }

  /// O += P V: one 64 x kDimV x 16 step per 16 keys; V's 64-column blocks lie
  /// kBlockN * 128 bytes apart, its 8-key row groups 1024.
  __device__ __forceinline__ void accumulate(float (&o)[1][kOTiles][4],
                                             const u32 (&p)[1][kBlockN / 16][4],
                                             int stage) const {
    const u64 v = sharedDescriptor(sV + stage * kBytesV, kBlockN * 128, 1024);
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk)
      Update::rs(o[0], p[0][kk], v + ((kk * 16 * 128) >> 4));
    wgmmaCommit();
  }

  __device__ __forceinline__ void accumulateDone(float (&o)[1][kOTiles][4]) const {
    wgmmaWait<0>();
    fenceAccumulators(o[0]);
  }
};

template <class C> using FlashForward = attn::FlashForward<C, Mma<C>>;

} // namespace sm90
} // namespace attn
