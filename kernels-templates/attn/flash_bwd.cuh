// Backward flash attention: what every variant shares. With
// P = exp(score_mod(scale q k^T) + bias - lse) (masked: 0), dP = dO v^T,
// D = rowsum(dO * O), dZ = P (dP - D) and dS = dZ score_mod'(scale q k^T):
//   dV = P^T dO, dK = scale dS^T Q, dQ = scale dS K, dbias = dZ.
//
// A backward is up to four launches (the runtime orders them on a stream):
//   FlashBackwardPre     D of every row; zeroes the dbias sum (a memset
//                        of the runtime zeroes the dQ sum before it)
//   <variant> FlashBackwardKV   K/V-stationary: dK, dV (and dbias) of a
//                        block of keys, summed over the query heads of its
//                        K/V head; dQ / scale added with f32 atomics
//   <variant> FlashBackwardQ    (deterministic mode, or where the variant's
//                        atomics are slower, instead of them)
//                        Q-stationary: dQ of a block of queries
//   FlashBackwardConvert dQ (and summed dbias) to their element types
//
// The configuration C binds typed constants (see the emitted source):
//   Element, BiasElement, kHeadDimQK, kHeadDimV, kBlockM, kBlockN,
//   kNumWarps, kStages, kCausal, kBottomRight, kWindow, kKeyPadding, kKeep,
//   kBias, kBiasGrad, kScoreMod, kVarlen, scoreMod() and scoreModGrad()
//   (the score_mod region and its derivative, reading the captures).
// Ragged batches (kVarlen, sm80's kernels): sequence b's rows start at its
// offsets (SequenceExtent, mask.cuh); the runtime passes no batch strides,
// and lse, D and the dQ sum have one batch entry of the packed rows.
// Which scores take part is the forward's mask policy (mask.cuh), the same
// code as the forward kernels'.
#pragma once
#include "attn/mask.cuh"
#include "attn/params_bwd.h"

namespace attn {

/// Copies 4 bytes global -> shared; `bytes` 0 reads nothing and stores 0.
__device__ __forceinline__ void copyAsync4(u32 dst, const void *src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst),
               "l"(src), "r"(bytes));
}
__device__ __forceinline__ void loadMatrixX2(u32 (&r)[2], u32 address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}
__device__ __forceinline__ void loadMatrixX2Trans(u32 (&r)[2], u32 address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}

/// The grid tile of a block of the sm80 kernels: a dense batch's (tile,
/// head, batch) grid as is; a ragged batch's grid x enumerates the tiles of
/// `tileRows` rows of every sequence in turn (varlenMBlocks,
/// tile_scheduler.h: `offsets` of `total` packed rows), resolved here to
/// the sequence b and its tile. False: past the last sequence's tiles.
/// Every thread of the block calls it.
template <class C>
__device__ __forceinline__ bool sequenceTile(const FlashBwdParams &p,
                                             const int *offsets, int total,
                                             int tileRows, int &b, int &tile) {
  if constexpr (!C::kVarlen) {
    b = blockIdx.z;
    tile = blockIdx.x;
    return true;
  } else {
    WorkTile t = {0, 0, static_cast<int>(blockIdx.x), 0};
    if (!resolveVarlenTile(t, offsets, p.batch, total, tileRows))
      return false;
    b = t.b;
    tile = t.mBlock;
    return true;
  }
}

/// Where row `row` (counted from the sequence's first, qStart) of query
/// head h of sequence b is in lse and D: [batch][heads_q][seq_q], a ragged
/// batch's [heads_q][packed rows].
template <class C>
__device__ __forceinline__ i64 rowStatIndex(const FlashBwdParams &p, int b,
                                            int h, int qStart, int row) {
  return (static_cast<i64>(C::kVarlen ? 0 : b) * p.heads_q + h) * p.seq_q +
         qStart + row;
}

/// A backward block's tile (of keys, or with kQueryTiles of queries), head
/// and batch in the longest-first order of backwardSchedule
/// (tile_scheduler.h): blocks start in the order of their linear index.
template <bool kQueryTiles>
__device__ __forceinline__ WorkTile backwardBlock() {
  const TileSchedule s = backwardSchedule(gridDim.x, gridDim.y, gridDim.z);
  WorkTile t = s.template tile<TileOrder::LongestFirst>(
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  if (!kQueryTiles)
    t.mBlock = gridDim.x - 1 - t.mBlock;
  return t;
}

/// The steps of a K/V-stationary block: its keys [n0, n0 + kBlockN) of K/V
/// head hk meet query tiles [tileBegin, tileBegin + numTiles) of every query
/// head of the group (the masks do not depend on the head, so one query
/// range serves them); step t is query head hk * group + t / numTiles
/// (head(t, hk * group)), rows from row(t). keysValid: the block's keys
/// that exist.
template <class C, int kBlockM, int kBlockN> struct KeyBlockSteps {
  int tileBegin, numTiles, steps, keysValid;
  __device__ __forceinline__ KeyBlockSteps(const FlashBwdParams &p, int b,
                                           int hk, int group, int n0) {
    const Mask<C> first(p, b, hk * group, 0, kBlockM);
    int mBegin, mEnd;
    first.queryRange(p, n0, kBlockN, mBegin, mEnd);
    tileBegin = mBegin / kBlockM;
    numTiles = mEnd > mBegin ? (mEnd + kBlockM - 1) / kBlockM - tileBegin : 0;
    steps = numTiles * group;
    keysValid = first.kvEnd - n0;
  }
  __device__ __forceinline__ int head(int t, int firstHead) const {
    return firstHead + t / numTiles;
  }
  __device__ __forceinline__ int row(int t) const {
    return (tileBegin + t % numTiles) * kBlockM;
  }
};

/// Stores dK (scaled) and dV of the 16 keys whose m16 accumulator rows a
/// warp holds (keys key0 + lane / 4 and + 8 of the sequence `seq`):
/// kDkTiles and kDvTiles n8 tiles from columns dkCol0 and dvCol0; columns
/// past the head dims (its padding) and keys past the sequence's are not
/// stored. Keys no query saw
/// (masked, padded) store their zero gradients. 16 bytes per lane
/// (storeRowVectorized) where the slices are whole groups of 4 tiles inside
/// the head dims and the rows 16-byte aligned (a choice uniform over the
/// warp), else 4.
template <class Ops, int kDimQK, int kDimV, int kDkTiles, int kDvTiles>
__device__ __forceinline__ void
storeKeyGradients(const FlashBwdParams &p, const SequenceExtent &seq, int b,
                  int hk, int key0, int dkCol0, int dvCol0,
                  const float (&dk)[kDkTiles][4],
                  const float (&dv)[kDvTiles][4]) {
  const int lane = threadIdx.x % 32;
  u16 *dkBase = static_cast<u16 *>(p.dk) + b * p.dk_strides[0] +
                hk * p.dk_strides[1] + seq.kStart * p.dk_strides[2];
  u16 *dvBase = static_cast<u16 *>(p.dv) + b * p.dv_strides[0] +
                hk * p.dv_strides[1] + seq.kStart * p.dv_strides[2];
  constexpr bool kWholeGroups = kDkTiles % 4 == 0 && kDvTiles % 4 == 0;
  const bool vectorized =
      kWholeGroups && dkCol0 + kDkTiles * 8 <= kDimQK &&
      dvCol0 + kDvTiles * 8 <= kDimV &&
      ((reinterpret_cast<unsigned long long>(dkBase) |
        reinterpret_cast<unsigned long long>(dvBase) |
        static_cast<unsigned long long>(p.dk_strides[2] | p.dv_strides[2]) *
            sizeof(u16)) %
       16) == 0;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int key = key0 + lane / 4 + half * 8;
    u16 *dkRow = dkBase + key * p.dk_strides[2];
    u16 *dvRow = dvBase + key * p.dv_strides[2];
    if constexpr (kWholeGroups) {
      if (vectorized) {
        storeRowVectorized<Ops>(dkRow + dkCol0, dk, half, p.scale,
                                key < seq.seqKV);
        storeRowVectorized<Ops>(dvRow + dvCol0, dv, half, 1.f,
                                key < seq.seqKV);
        continue;
      }
    }
    if (key >= seq.seqKV)
      continue;
#pragma unroll
    for (int t = 0; t < kDkTiles; ++t) {
      const int col = dkCol0 + t * 8 + (lane % 4) * 2;
      if (col < kDimQK)
        *reinterpret_cast<u32 *>(dkRow + col) =
            Ops::pack(dk[t][2 * half] * p.scale, dk[t][2 * half + 1] * p.scale);
    }
#pragma unroll
    for (int t = 0; t < kDvTiles; ++t) {
      const int col = dvCol0 + t * 8 + (lane % 4) * 2;
      if (col < kDimV)
        *reinterpret_cast<u32 *>(dvRow + col) =
            Ops::pack(dv[t][2 * half], dv[t][2 * half + 1]);
    }
  }
}

/// Adds two consecutive f32 values (8-byte aligned) to a sum in global
/// memory: one vector reduction on sm_90 (half the L2 atomic transactions
/// of two scalar ones), two before it.
__device__ __forceinline__ void reduceAddPair(float *address, float lo,
                                              float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(address),
               "f"(lo), "f"(hi)
               : "memory");
#else
  atomicAdd(address, lo);
  atomicAdd(address + 1, hi);
#endif
}

/// The element-wise step of the backward, with the forward's mask policy
/// (Mask<C>, mask.cuh): which queries a block of keys visits, which tiles
/// are full, and the masks, bias, keep and score_mod of each score.
/// Zeroes accumulator fragments (m16n8 tiles of four floats each).
template <int kTiles>
__device__ __forceinline__ void zeroFragments(float (&x)[kTiles][4]) {
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      x[t][e] = 0.f;
}

/// The Q/dO pipeline of the K/V-stationary kernels, kStages (1 or 2) deep:
/// cp.async group 0 holds K and V (and step 0's tiles with two stages);
/// step t waits for its tiles, meets the other warps at a barrier (all are
/// past step t - 1, so its stage and the shared scratch it wrote are free)
/// and issues step t + 1's loads (or leaves them to next()). loadStep(t,
/// stage) issues step t's copies; landed() runs between the wait and the
/// barrier.
template <int kStages> struct StepPipeline {
  static_assert(kStages == 1 || kStages == 2, "one or two Q/dO stages");
  template <class Load>
  static __device__ __forceinline__ void start(int steps, Load &&loadStep) {
    if (kStages == 2 && steps > 0)
      loadStep(0, 0);
    commitAsync();
  }
  /// Step t's stage, once its tiles are there. With kDeferNext, step
  /// t + 1's loads wait for next().
  template <bool kDeferNext = false, class Load, class Landed>
  static __device__ __forceinline__ int begin(int t, int steps, Load &&loadStep,
                                              Landed &&landed) {
    const int stage = kStages == 2 ? t % 2 : 0;
    if (kStages == 1) {
      // Every warp is done with the previous step's tiles.
      if (t > 0)
        __syncthreads();
      loadStep(t, 0);
      commitAsync();
    }
    waitAsync<0>();
    landed();
    __syncthreads();
    if (!kDeferNext)
      next(t, steps, loadStep);
    return stage;
  }
  /// Step t + 1's loads (two stages, into step t - 1's stage: every warp is
  /// past step t - 1).
  template <class Load>
  static __device__ __forceinline__ void next(int t, int steps, Load &&loadStep) {
    if (kStages == 2 && t + 1 < steps) {
      loadStep(t + 1, (t + 1) % 2);
      commitAsync();
    }
  }
};

template <class C> struct BackwardScores {
  /// One score of the tile `mask` stands for: `s` holds q.k and becomes P;
  /// `dp` holds dP and becomes dS. lseLog2 is the row's logsumexp in base
  /// 2 (-inf: the row sees no key), delta its D. With kIndexed, masks, bias
  /// and score_mod apply (and, with kWriteBiasGrad, the bias gradient is
  /// written); otherwise the element is known to take part.
  template <bool kIndexed, bool kWriteBiasGrad>
  static __device__ __forceinline__ void apply(const FlashBwdParams &p,
                                               const Mask<C> &mask, int q,
                                               int k, float lseLog2,
                                               float delta, float &s,
                                               float &dp) {
    float x = s * p.scale;
    if (!kIndexed) {
      s = fastExp2(x * kLog2e - lseLog2);
      dp = s * (dp - delta);
      return;
    }
    const bool inside = q < mask.seqQ(p) && k < mask.seqKV(p);
    float slope = 1.f;
    if (C::kScoreMod) {
      slope = C::scoreModGrad(x, mask.b, mask.h, q, k, p.score_mod_captures);
      x = C::scoreMod(x, mask.b, mask.h, q, k, p.score_mod_captures);
    }
    if (C::kBias && inside)
      x += mask.bias(p, q, k);
    bool ok = inside && lseLog2 != negInf() && mask.positionAllowed(p, q, k);
    if (C::kKeep)
      ok = ok && mask.kept(p, q, k);
    const float prob = ok ? fastExp2(x * kLog2e - lseLog2) : 0.f;
    const float dz = prob * (dp - delta);
    if (C::kBiasGrad && kWriteBiasGrad && prob != 0.f) {
      if (p.dbias_accum)
        atomicAdd(p.dbias_accum + mask.b * p.dbias_accum_strides[0] +
                      mask.h * p.dbias_accum_strides[1] +
                      q * p.dbias_accum_strides[2] + k * p.dbias_accum_strides[3],
                  dz);
      else
        ElementIO<typename C::BiasElement>::store(
            p.dbias,
            mask.b * p.dbias_strides[0] + mask.h * p.dbias_strides[1] +
                q * p.dbias_strides[2] + k * p.dbias_strides[3],
            dz);
    }
    s = prob;
    // A dropped entry contributes nothing, even where score_mod' is not
    // finite there.
    dp = prob != 0.f ? dz * slope : 0.f;
  }

  /// True if no element of the tile of rows [mask.m0, mask.m0 + rows) and
  /// keys [n0, n0 + cols) needs masking: its rows are queries (the
  /// backward sums every row into dK and dV) and the mask keeps every key.
  static __device__ __forceinline__ bool tileIsFull(const FlashBwdParams &p,
                                                    const Mask<C> &mask,
                                                    int rows, int n0,
                                                    int cols) {
    return mask.m0 + rows <= mask.seqQ(p) && mask.tileIsFull(p, n0, cols);
  }
  /// Calls body(IntegralConstant<bool, indexed>) with indexed true where
  /// the rows x cols tile at n0 needs element-wise masking. The branch is
  /// taken once per tile, outside the element loops: inside them it split
  /// every element into its own basic block, and each exponential waited
  /// for the one before (ptxas does not interleave across the branches).
  template <class Body>
  static __device__ __forceinline__ void
  forTile(const FlashBwdParams &p, const Mask<C> &mask, int rows, int n0,
          int cols, Body &&body) {
    if (Mask<C>::kAlwaysElementwise || !tileIsFull(p, mask, rows, n0, cols))
      body(IntegralConstant<bool, true>{});
    else
      body(IntegralConstant<bool, false>{});
  }
  /// P and dS of a warp's m16 accumulator tiles in place of S and dP: keys
  /// are rows (key0 + lane / 4 and + 8), queries columns (col0 + 8 j +
  /// 2 (lane % 4) and + 1, indexing the stage's lse and delta); masked
  /// element-wise only where the rows x cols tile at n0 needs it.
  template <int kTiles>
  static __device__ __forceinline__ void
  applyKeyRows(const FlashBwdParams &p, const Mask<C> &mask, int rows, int n0,
               int cols, int key0, int col0, const float *lse,
               const float *delta, float (&s)[kTiles][4],
               float (&dp)[kTiles][4]) {
    const int lane = threadIdx.x % 32;
    forTile(p, mask, rows, n0, cols, [&](auto indexed) {
#pragma unroll
      for (int j = 0; j < kTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = key0 + lane / 4 + (e / 2) * 8;
          const int col = col0 + j * 8 + (lane % 4) * 2 + e % 2;
          apply<decltype(indexed)::value, true>(p, mask, mask.m0 + col, key,
                                                lse[col] * kLog2e, delta[col],
                                                s[j][e], dp[j][e]);
        }
    });
  }
};

/// dbias element i of a [d0][d1][d2][d3] index space at the given strides.
__device__ __forceinline__ i64 stridedOffset(i64 i, const int (&shape)[4],
                                             const i64 (&strides)[4]) {
  i64 offset = 0;
#pragma unroll
  for (int d = 3; d >= 0; --d) {
    offset += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  return offset;
}

/// Where the atomic mode's f32 dQ sums (dq_accum) live, as the K/V
/// kernel that adds to them says (its DqAccum): element (bh, i, d) of query
/// row i of head bh = b * heads_q + h. Row by row, [bh][seq_q][kHeadDimQK]:
template <class C> struct RowMajorDqAccum {
  static constexpr bool kTiled = false;
  static __device__ __forceinline__ i64 offset(i64 bh, int i, int d,
                                               int seqQ) {
    return (bh * seqQ + i) * C::kHeadDimQK + d;
  }
};
/// Or tile by tile: each head's rows in kRows-row tiles (the last one
/// padded), each tile contiguous, so that one bulk reduction adds a K/V
/// block's whole dQ of a query tile. Inside a tile, 64 x 64 chunks (the
/// dQ product of a warpgroup: m64 rows by a 64-column block, chunks of a
/// column block after the other, row tiles outermost) in the order of the
/// accumulator fragments: each warp's 16 rows and each n8 tile j, its
/// lanes' four values (rows lane / 4 and + 8, columns 2 (lane % 4) and
/// + 1) 16 bytes apart, so that each warp stores 512 contiguous bytes.
template <class C, int kRows> struct TiledDqAccum {
  static constexpr bool kTiled = true;
  static constexpr int kTileRows = kRows;
  static constexpr int kDim = C::kHeadDimQK;
  static_assert(kRows % 64 == 0 && kDim % 64 == 0,
                "whole 64 x 64 chunks of the dQ product");
  static constexpr int kTileFloats = kRows * kDim;
  /// Of element (r, d) of a tile.
  static __device__ __forceinline__ int inTile(int r, int d) {
    const int rr = r % 64, cc = d % 64;
    const int chunk = (r / 64) * (kDim / 64) + d / 64;
    const int warp = rr / 16, rem = rr % 16;
    const int lane = (rem % 8) * 4 + (cc % 8) / 2;
    const int e = (rem / 8) * 2 + cc % 2;
    return chunk * 4096 + ((warp * 8 + cc / 8) * 32 + lane) * 4 + e;
  }
  static __device__ __forceinline__ i64 tile(i64 bh, int i, int seqQ) {
    return (bh * ((seqQ + kRows - 1) / kRows) + i / kRows) * kTileFloats;
  }
  static __device__ __forceinline__ i64 offset(i64 bh, int i, int d,
                                               int seqQ) {
    return tile(bh, i, seqQ) + inTile(i % kRows, d);
  }
};

/// D = rowsum(dO * O) per row of [batch][heads_q][seq_q]: each warp takes
/// backwardPreRowsPerWarp rows (params_bwd.h), a group of lanes a row, 16
/// bytes per lane where the rows allow, else 2; and, over the grid, zeroes
/// the dbias sum or the dbias written in place. (The dQ sum is zeroed by
/// the runtime's memset before it.)
template <class C, class DqAccum> struct FlashBackwardPre {
  static __device__ void run(const FlashBwdParams &p) {
    constexpr int kRowsPerWarp = backwardPreRowsPerWarp(C::kHeadDimV);
    constexpr int kLanes = 32 / kRowsPerWarp;
    const int lane = threadIdx.x % 32, l = lane % kLanes;
    const i64 rows =
        static_cast<i64>(C::kVarlen ? 1 : p.batch) * p.heads_q * p.seq_q;
    const i64 r = (static_cast<i64>(blockIdx.x) * (kBackwardRowThreads / 32) +
                   threadIdx.x / 32) *
                      kRowsPerWarp +
                  lane / kLanes;
    float sum = 0.f;
    if (r < rows) {
      const int i = static_cast<int>(r % p.seq_q);
      const int h = static_cast<int>(r / p.seq_q % p.heads_q);
      const int b = static_cast<int>(r / (static_cast<i64>(p.seq_q) * p.heads_q));
      const u16 *o = static_cast<const u16 *>(p.o) + b * p.o_strides[0] +
                     h * p.o_strides[1] + i * p.o_strides[2];
      const u16 *dout = static_cast<const u16 *>(p.dout) + b * p.dout_strides[0] +
                        h * p.dout_strides[1] + i * p.dout_strides[2];
      using Ops = ElementOps<typename C::Element>;
      const bool vectorized =
          C::kHeadDimV % 8 == 0 &&
          ((reinterpret_cast<unsigned long long>(o) |
            reinterpret_cast<unsigned long long>(dout)) %
           16) == 0;
      if (vectorized) {
        for (int d = l * 8; d < C::kHeadDimV; d += kLanes * 8) {
          const uint4 x = *reinterpret_cast<const uint4 *>(o + d);
          const uint4 y = *reinterpret_cast<const uint4 *>(dout + d);
          const u32 xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
#pragma unroll
          for (int w = 0; w < 4; ++w)
            sum += Ops::toFloat(static_cast<u16>(xs[w] & 0xffffu)) *
                       Ops::toFloat(static_cast<u16>(ys[w] & 0xffffu)) +
                   Ops::toFloat(static_cast<u16>(xs[w] >> 16)) *
                       Ops::toFloat(static_cast<u16>(ys[w] >> 16));
        }
      } else {
        for (int d = l; d < C::kHeadDimV; d += kLanes)
          sum += Ops::toFloat(o[d]) * Ops::toFloat(dout[d]);
      }
    }
    // Within each group (every lane takes part; rows past the end add 0).
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset /= 2)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (l == 0 && r < rows)
      p.delta[r] = sum;
    if (C::kBiasGrad) {
      const i64 elements = static_cast<i64>(p.dbias_shape[0]) * p.dbias_shape[1] *
                           p.dbias_shape[2] * p.dbias_shape[3];
      for (i64 e = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
           e < elements; e += static_cast<i64>(gridDim.x) * blockDim.x) {
        if (p.dbias_accum)
          p.dbias_accum[e] = 0.f;
        else
          ElementIO<typename C::BiasElement>::store(
              p.dbias, stridedOffset(e, p.dbias_shape, p.dbias_strides), 0.f);
      }
    }
  }
};

/// The sinks' gradient, dsinks[h] = -sum over (b, i) of
/// exp(sink[h] - lse) * D (a sink adds no value: its dP is 0), after _pre
/// wrote D. A block a query head, kBackwardRowThreads threads: each sums
/// its rows in a fixed order, then the block in a fixed tree, so the sum
/// is the same run to run (no atomics). A row without weight (-inf lse or
/// sink) adds 0.
struct FlashBackwardSinks {
  static __device__ void run(const FlashBwdParams &p) {
    const int h = blockIdx.x;
    const float sink = p.sinks[h];
    float sum = 0.f;
    for (int b = 0; b < p.batch; ++b) {
      // A ragged batch's sequence b: its rows of [heads_q][packed rows]
      // (rows of no sequence hold no logsumexp).
      i64 row0 = (static_cast<i64>(b) * p.heads_q + h) * p.seq_q;
      int rows = p.seq_q;
      if (p.cu_seqlens_q) {
        const int start = min(max(p.cu_seqlens_q[b], 0), p.seq_q);
        rows = min(max(p.cu_seqlens_q[b + 1], start), p.seq_q) - start;
        row0 = static_cast<i64>(h) * p.seq_q + start;
      }
      for (int i = threadIdx.x; i < rows; i += kBackwardRowThreads) {
        const float lse = p.lse[row0 + i];
        if (lse != negInf() && sink != negInf())
          sum -= fastExp2((sink - lse) * kLog2e) * p.delta[row0 + i];
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    __shared__ float warps[kBackwardRowThreads / 32];
    if (threadIdx.x % 32 == 0)
      warps[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
      float total = 0.f;
#pragma unroll
      for (int w = 0; w < kBackwardRowThreads / 32; ++w)
        total += warps[w];
      p.dsinks[h] = total;
    }
  }
};

/// dQ = scale * the f32 sum, in the element type (atomic mode); and the
/// summed dbias to its element type. A warp a task, no loop (a grid-stride
/// loop's 64-bit divisions made ptxas spill): the runtime's grid has a
/// warp per row of [batch][heads_q][seq_q], and at least one per
/// kBackwardConvertFloatsPerWarp floats of the sum. Row by row, a warp a
/// row; tile by tile, a warp 16 rows by 32 columns of a 64 x 64 chunk:
/// four 512-byte reads (n8 tiles 4g .. 4g + 3 of its warp slot) and,
/// transposed across each quad, 16-byte stores.
template <class C, class DqAccum> struct FlashBackwardConvert {
  static __device__ void run(const FlashBwdParams &p) {
    const int lane = threadIdx.x % 32;
    const i64 warp =
        static_cast<i64>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    if (p.dq_accum)
      convertDq(p, lane, warp);
    if (C::kBiasGrad && p.dbias_accum) {
      const i64 elements = static_cast<i64>(p.dbias_shape[0]) * p.dbias_shape[1] *
                           p.dbias_shape[2] * p.dbias_shape[3];
      for (i64 e = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
           e < elements; e += static_cast<i64>(gridDim.x) * blockDim.x)
        ElementIO<typename C::BiasElement>::store(
            p.dbias, stridedOffset(e, p.dbias_shape, p.dbias_strides),
            p.dbias_accum[e]);
    }
  }

  static __device__ __forceinline__ void convertDq(const FlashBwdParams &p,
                                                   int lane, i64 task) {
    using Ops = ElementOps<typename C::Element>;
    const i64 heads = static_cast<i64>(C::kVarlen ? 1 : p.batch) * p.heads_q;
    if constexpr (DqAccum::kTiled) {
      constexpr int kDim = DqAccum::kDim, kRows = DqAccum::kTileRows;
      constexpr int kChunksPerTile = (kRows / 64) * (kDim / 64);
      const int tilesPerHead = (p.seq_q + kRows - 1) / kRows;
      const i64 chunks = heads * tilesPerHead * kChunksPerTile;
      // Uniform: 16-byte stores need every row 16-byte aligned.
      const bool vectorized =
          ((reinterpret_cast<unsigned long long>(p.dq) |
            static_cast<unsigned long long>(p.dq_strides[0] | p.dq_strides[1] |
                                            p.dq_strides[2]) *
                sizeof(u16)) %
           16) == 0;
      if (task < chunks * 8) {
        const i64 chunk = task / 8;
        const int slot = static_cast<int>(task % 8) / 2, g = task % 2;
        const int inTile = static_cast<int>(chunk % kChunksPerTile);
        const i64 tile = chunk / kChunksPerTile;
        const i64 bh = tile / tilesPerHead;
        const int b = static_cast<int>(bh / p.heads_q),
                  h = static_cast<int>(bh % p.heads_q);
        const int row0 = static_cast<int>(tile % tilesPerHead) * kRows +
                         (inTile / (kDim / 64)) * 64 + 16 * slot + lane / 4;
        const int col0 = (inTile % (kDim / 64)) * 64 + 32 * g;
        float acc[4][4];
        const float *from = p.dq_accum + chunk * 4096 + slot * 1024 +
                            (4 * g) * 128 + lane * 4;
#pragma unroll
        for (int t = 0; t < 4; ++t) {
          const float4 x = *reinterpret_cast<const float4 *>(from + t * 128);
          acc[t][0] = x.x;
          acc[t][1] = x.y;
          acc[t][2] = x.z;
          acc[t][3] = x.w;
        }
        u16 *dq = static_cast<u16 *>(p.dq) + b * p.dq_strides[0] +
                  h * p.dq_strides[1];
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = row0 + 8 * half;
          u16 *dqRow = dq + static_cast<i64>(row) * p.dq_strides[2] + col0;
          if (vectorized) {
            storeRowVectorized<Ops>(dqRow, acc, half, p.scale, row < p.seq_q);
          } else if (row < p.seq_q) {
#pragma unroll
            for (int t = 0; t < 4; ++t)
              *reinterpret_cast<u32 *>(dqRow + t * 8 + (lane % 4) * 2) =
                  Ops::pack(acc[t][2 * half] * p.scale,
                            acc[t][2 * half + 1] * p.scale);
          }
        }
      }
    } else {
      // 16-byte reads and 8-byte stores where the head dim and dQ's rows
      // allow (uniform), else element by element.
      const bool vectorized =
          C::kHeadDimQK % 4 == 0 &&
          ((reinterpret_cast<unsigned long long>(p.dq) |
            static_cast<unsigned long long>(p.dq_strides[0] | p.dq_strides[1] |
                                            p.dq_strides[2]) *
                sizeof(u16)) %
           8) == 0;
      const i64 rows = heads * p.seq_q;
      if (const i64 r = task; r < rows) {
        const int i = static_cast<int>(r % p.seq_q);
        const int h = static_cast<int>(r / p.seq_q % p.heads_q);
        const int b = static_cast<int>(r / (static_cast<i64>(p.seq_q) * p.heads_q));
        const i64 dq = b * p.dq_strides[0] + h * p.dq_strides[1] + i * p.dq_strides[2];
        const float *sum = p.dq_accum + DqAccum::offset(r / p.seq_q, i, 0, p.seq_q);
        if (vectorized) {
          for (int d = lane * 4; d < C::kHeadDimQK; d += 32 * 4) {
            const float4 x = *reinterpret_cast<const float4 *>(sum + d);
            *reinterpret_cast<uint2 *>(static_cast<u16 *>(p.dq) + dq + d) =
                make_uint2(Ops::pack(x.x * p.scale, x.y * p.scale),
                           Ops::pack(x.z * p.scale, x.w * p.scale));
          }
        } else {
          for (int d = lane; d < C::kHeadDimQK; d += 32)
            ElementIO<typename C::Element>::store(p.dq, dq + d, sum[d] * p.scale);
        }
      }
    }
  }
};

} // namespace attn
