// Forward flash attention for sm_80 and newer: mma.sync m16n8k16, ldmatrix,
// cp.async multi-stage K/V pipeline, online softmax in base 2.
//
// A block of kNumWarps warps owns kBlockM query rows of one (batch, head);
// each warp owns kBlockM / kNumWarps rows and sweeps every key tile of
// kBlockN keys: S = Q K^T, masking on the tiles that need it, online softmax,
// O += P V with P taken straight from the S accumulators.
//
// The configuration C binds typed constants only (see the emitted source):
//   Element (F16/BF16), BiasElement, kHeadDimQK, kHeadDimV, kBlockM, kBlockN,
//   kNumWarps, kStages, kTransposeK, kCausal, kBottomRight, kWindow,
//   kKeyPadding, kKeep, kBias, kScoreMod, kWriteLse, and scoreMod().
#pragma once
#include "attn/common.cuh"

namespace attn {
namespace sm80 {

template <class C> struct FlashForward {
  using Ops = ElementOps<typename C::Element>;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kNumWarps = C::kNumWarps, kStages = C::kStages;
  static constexpr int kThreads = kNumWarps * 32;
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
      2 * (kElemsQ + kStages * (kElemsK + kElemsV));

  static constexpr int kRowsPerWarp = kBlockM / kNumWarps;
  static constexpr int kMTiles = kRowsPerWarp / 16;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kOTiles = kDimVPad / 8;
  static constexpr bool kPositional = C::kCausal || C::kWindow;
  // Element-wise work on every tile, not only on boundary tiles.
  static constexpr bool kAlwaysElementwise = C::kKeep || C::kBias || C::kScoreMod;

  static_assert(kRowsPerWarp % 16 == 0, "each warp owns whole m16 tiles");
  static_assert(kBlockN % 16 == 0, "key tiles are whole k16 steps");
  static_assert(kDimQK % 8 == 0 && kDimV % 8 == 0, "head dims are multiples of 8");

  /// Copies a [rows][cols] tile of 16-bit elements to shared memory in 16-byte
  /// chunks; rows >= rowsValid and columns >= colsValid read as zero.
  template <int Rows, int Cols, int Stride>
  static __device__ __forceinline__ void loadTile(u16 *smem, const u16 *gmem,
                                                  i64 rowStride, int rowsValid,
                                                  int colsValid) {
    constexpr int kChunksPerRow = Cols / 8;
    constexpr int kChunks = Rows * kChunksPerRow;
#pragma unroll
    for (int c = threadIdx.x; c < kChunks; c += kThreads) {
      int row = c / kChunksPerRow, col = (c % kChunksPerRow) * 8;
      int elems = row < rowsValid ? min(max(colsValid - col, 0), 8) : 0;
      const u16 *src = elems > 0 ? gmem + row * rowStride + col : gmem;
      copyAsync16(smem + row * Stride + col, src, elems * 2);
    }
  }

  /// Zeroes the columns [from, to) of a [rows][stride] shared tile.
  template <int Rows, int Stride>
  static __device__ __forceinline__ void zeroColumns(u16 *smem, int from, int to) {
    int width = to - from;
    for (int i = threadIdx.x; i < Rows * width; i += kThreads)
      smem[(i / width) * Stride + from + i % width] = 0;
  }

  struct Block {
    int b, h, hk, m0, qLast, kvEnd, diagOffset;
  };

  /// True if key k may take part for query q (positions and lengths only).
  static __device__ __forceinline__ bool positionAllowed(const FlashParams &p,
                                                         const Block &blk,
                                                         int q, int k) {
    bool ok = k < blk.kvEnd;
    int diag = q + blk.diagOffset;
    if (C::kCausal)
      ok = ok && k <= diag;
    if (C::kWindow) {
      if (p.window_left >= 0)
        ok = ok && k >= diag - p.window_left;
      if (p.window_right >= 0)
        ok = ok && k <= diag + p.window_right;
    }
    return ok;
  }

  /// True if every key of the tile at n0 is allowed for every row.
  static __device__ __forceinline__ bool tileIsFull(const FlashParams &p,
                                                    const Block &blk, int n0) {
    bool full = n0 + kBlockN <= blk.kvEnd;
    if (C::kCausal)
      full = full && n0 + kBlockN - 1 <= blk.m0 + blk.diagOffset;
    if (C::kWindow) {
      if (p.window_right >= 0)
        full = full && n0 + kBlockN - 1 <= blk.m0 + blk.diagOffset + p.window_right;
      if (p.window_left >= 0)
        full = full && n0 >= blk.qLast + blk.diagOffset - p.window_left;
    }
    return full;
  }

  /// Turns raw q.k scores into base-2 logits: scale, score_mod, bias, masks.
  template <bool kElementwise>
  static __device__ __forceinline__ void
  scoresToLogits(const FlashParams &p, const Block &blk, int n0, int rowBase,
                 float (&s)[kMTiles][kNTiles][4]) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int j = 0; j < kNTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (!kElementwise) {
            s[mt][j][e] *= p.scale_log2;
            continue;
          }
          int q = blk.m0 + rowBase + mt * 16 + lane / 4 + (e / 2) * 8;
          int k = n0 + j * 8 + (lane % 4) * 2 + (e % 2);
          bool inside = q < p.seq_q && k < p.seq_kv;
          float x = s[mt][j][e] * p.scale;
          if (C::kScoreMod)
            x = C::scoreMod(x, blk.b, blk.h, q, k);
          if (C::kBias && inside)
            x += BiasOps<typename C::BiasElement>::load(
                p.bias, blk.b * p.bias_strides[0] + blk.h * p.bias_strides[1] +
                            q * p.bias_strides[2] + k * p.bias_strides[3]);
          bool ok = positionAllowed(p, blk, q, k);
          if (C::kKeep)
            ok = ok && inside &&
                 p.keep[blk.b * p.keep_strides[0] + blk.h * p.keep_strides[1] +
                        q * p.keep_strides[2] + k * p.keep_strides[3]] != 0;
          s[mt][j][e] = ok ? x * kLog2e : negInf();
        }
  }

  static __device__ void run(const FlashParams &p, char *smemRaw) {
    u16 *sQ = reinterpret_cast<u16 *>(smemRaw);
    u16 *sK = sQ + kElemsQ;
    u16 *sV = sK + kStages * kElemsK;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int rowBase = warp * kRowsPerWarp;

    Block blk;
    // Positional masks make later query blocks longer: start those first.
    int mBlock = kPositional ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    blk.h = blockIdx.y;
    blk.b = blockIdx.z;
    blk.hk = blk.h / (p.heads_q / p.heads_kv);
    blk.m0 = mBlock * kBlockM;
    blk.qLast = min(blk.m0 + kBlockM, p.seq_q) - 1;
    blk.kvEnd = p.seq_kv;
    if (C::kKeyPadding)
      blk.kvEnd = min(p.seq_kv, max(p.lengths[blk.b], 0));
    blk.diagOffset = C::kBottomRight ? p.seq_kv - p.seq_q : 0;

    // The key range any row of this block can see; tiles outside are skipped.
    int nBegin = 0, nEnd = blk.kvEnd;
    if (C::kCausal)
      nEnd = min(nEnd, blk.qLast + blk.diagOffset + 1);
    if (C::kWindow) {
      if (p.window_right >= 0)
        nEnd = min(nEnd, blk.qLast + blk.diagOffset + p.window_right + 1);
      if (p.window_left >= 0)
        nBegin = max(0, blk.m0 + blk.diagOffset - p.window_left);
    }
    const int tileBegin = nBegin / kBlockN;
    const int tileEnd = nEnd > nBegin ? (nEnd + kBlockN - 1) / kBlockN : tileBegin;
    const int numTiles = tileEnd - tileBegin;

    const u16 *q = static_cast<const u16 *>(p.q) + blk.b * p.q_strides[0] +
                   blk.h * p.q_strides[1] + blk.m0 * p.q_strides[2];
    const u16 *k = static_cast<const u16 *>(p.k) + blk.b * p.k_strides[0] +
                   blk.hk * p.k_strides[1];
    const u16 *v = static_cast<const u16 *>(p.v) + blk.b * p.v_strides[0] +
                   blk.hk * p.v_strides[1];

    // Padding columns of the head dims stay zero: cp.async never writes them.
    if (kDimQKPad != kDimQK) {
      zeroColumns<kBlockM, kStrideQ>(sQ, kDimQK, kDimQKPad);
      for (int st = 0; st < kStages; ++st) {
        if (C::kTransposeK)
          zeroColumns<1, kElemsK>(sK + st * kElemsK, kDimQK * kStrideK,
                                  kDimQKPad * kStrideK);
        else
          zeroColumns<kBlockN, kStrideK>(sK + st * kElemsK, kDimQK, kDimQKPad);
      }
    }
    if (kDimVPad != kDimV)
      for (int st = 0; st < kStages; ++st)
        zeroColumns<kBlockN, kStrideV>(sV + st * kElemsV, kDimV, kDimVPad);

    // Tiles run from the last key tile to the first, so that the diagonal
    // (masked) tiles of a causal block come first.
    auto tileStart = [&](int i) { return (tileEnd - 1 - i) * kBlockN; };
    auto loadKV = [&](int i) {
      int n0 = tileStart(i), stage = i % kStages;
      int valid = blk.kvEnd - n0;
      if (C::kTransposeK)
        loadTile<kDimQK, kBlockN, kStrideK>(sK + stage * kElemsK, k + n0,
                                            p.k_strides[2], kDimQK, valid);
      else
        loadTile<kBlockN, kDimQK, kStrideK>(sK + stage * kElemsK,
                                            k + n0 * p.k_strides[2],
                                            p.k_strides[2], valid, kDimQK);
      loadTile<kBlockN, kDimV, kStrideV>(sV + stage * kElemsV,
                                         v + n0 * p.v_strides[2],
                                         p.v_strides[2], valid, kDimV);
    };

    loadTile<kBlockM, kDimQK, kStrideQ>(sQ, q, p.q_strides[2],
                                        p.seq_q - blk.m0, kDimQK);
#pragma unroll
    for (int i = 0; i < kStages - 1; ++i) {
      if (i < numTiles)
        loadKV(i);
      commitAsync();
    }

    // Per-lane ldmatrix addresses (bytes); loops add compile-time offsets.
    // A: rows of Q. B of S = Q K^T: rows of K (or of K^T, transposed). B of
    // O = P V: rows of V, transposed.
    const u32 qLane = sharedAddress(sQ) +
                      2 * ((rowBase + lane % 16) * kStrideQ + (lane / 16) * 8);
    const u32 kLane =
        sharedAddress(sK) +
        2 * (C::kTransposeK
                 ? (lane % 8 + ((lane / 8) % 2) * 8) * kStrideK + (lane / 16) * 8
                 : (lane % 8 + (lane / 16) * 8) * kStrideK + ((lane / 8) % 2) * 8);
    const u32 vLane = sharedAddress(sV) +
                      2 * ((lane % 8 + ((lane / 8) % 2) * 8) * kStrideV +
                           (lane / 16) * 8);

    float o[kMTiles][kOTiles][4];
    float rowMax[kMTiles][2], rowSum[kMTiles][2];
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int d = 0; d < kOTiles; ++d)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o[mt][d][e] = 0.f;
      rowMax[mt][0] = rowMax[mt][1] = negInf();
      rowSum[mt][0] = rowSum[mt][1] = 0.f;
    }

    for (int i = 0; i < numTiles; ++i) {
      if (i + kStages - 1 < numTiles)
        loadKV(i + kStages - 1);
      commitAsync();
      waitAsync<kStages - 1>();
      __syncthreads();

      const int n0 = tileStart(i), stage = i % kStages;
      const u32 tK = kLane + stage * (2 * kElemsK);
      const u32 tV = vLane + stage * (2 * kElemsV);

      // S = Q K^T for this warp's rows.
      float s[kMTiles][kNTiles][4];
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

      if (kAlwaysElementwise || !tileIsFull(p, blk, n0))
        scoresToLogits<true>(p, blk, n0, rowBase, s);
      else
        scoresToLogits<false>(p, blk, n0, rowBase, s);

      // Online softmax: each row lives in one quad (4 lanes).
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          float mx = rowMax[mt][half];
#pragma unroll
          for (int j = 0; j < kNTiles; ++j)
            mx = fmaxf(mx, fmaxf(s[mt][j][2 * half], s[mt][j][2 * half + 1]));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
          // A row with no allowed key so far keeps max -inf; exponentiate
          // against 0 so that -inf - -inf never makes a NaN.
          float base = mx == negInf() ? 0.f : mx;
          float alpha = fastExp2(rowMax[mt][half] - base);
          rowMax[mt][half] = mx;
          float sum = 0.f;
#pragma unroll
          for (int j = 0; j < kNTiles; ++j)
#pragma unroll
            for (int e = 2 * half; e < 2 * half + 2; ++e) {
              s[mt][j][e] = fastExp2(s[mt][j][e] - base);
              sum += s[mt][j][e];
            }
          rowSum[mt][half] = rowSum[mt][half] * alpha + sum;
#pragma unroll
          for (int d = 0; d < kOTiles; ++d) {
            o[mt][d][2 * half] *= alpha;
            o[mt][d][2 * half + 1] *= alpha;
          }
        }

      // O += P V, with P packed from the S accumulators.
#pragma unroll
      for (int kk = 0; kk < kBlockN / 16; ++kk) {
        u32 a[kMTiles][4];
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          a[mt][0] = Ops::pack(s[mt][2 * kk][0], s[mt][2 * kk][1]);
          a[mt][1] = Ops::pack(s[mt][2 * kk][2], s[mt][2 * kk][3]);
          a[mt][2] = Ops::pack(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
          a[mt][3] = Ops::pack(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
        }
#pragma unroll
        for (int d = 0; d < kOTiles; d += 2) {
          u32 bf[4];
          loadMatrixX4Trans(bf, tV + 2 * (kk * 16 * kStrideV + d * 8));
#pragma unroll
          for (int mt = 0; mt < kMTiles; ++mt) {
            Ops::mma(o[mt][d], a[mt], bf[0], bf[1]);
            Ops::mma(o[mt][d + 1], a[mt], bf[2], bf[3]);
          }
        }
      }
      // The next iteration's loads overwrite the stage this one read.
      __syncthreads();
    }
    waitAsync<0>();

    // Epilogue: normalize, convert, store; rows past seq_q are dropped.
    u16 *out = static_cast<u16 *>(p.o) + blk.b * p.o_strides[0] +
               blk.h * p.o_strides[1];
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        float sum = rowSum[mt][half];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        float inv = sum > 0.f ? 1.f / sum : 0.f;
        int row = blk.m0 + rowBase + mt * 16 + lane / 4 + half * 8;
        if (row >= p.seq_q)
          continue;
#pragma unroll
        for (int d = 0; d < kOTiles; ++d) {
          int col = d * 8 + (lane % 4) * 2;
          if (d * 8 < kDimV)
            *reinterpret_cast<u32 *>(out + row * p.o_strides[2] + col) =
                Ops::pack(o[mt][d][2 * half] * inv, o[mt][d][2 * half + 1] * inv);
        }
        if (C::kWriteLse && lane % 4 == 0)
          p.lse[(static_cast<i64>(blk.b) * p.heads_q + blk.h) * p.seq_q + row] =
              sum > 0.f ? (rowMax[mt][half] + __log2f(sum)) * kLn2 : negInf();
      }
  }
};

} // namespace sm80
} // namespace attn
