// Forward flash attention: the block schedule, masking and online softmax
// (base 2) that every architecture shares. The two matrix products and the
// shared-memory layout they read come from an Mma policy (sm80/flash_fwd.cuh:
// mma.sync + ldmatrix; sm90/flash_fwd.cuh: wgmma).
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
//   kKeyPadding, kKeep, kBias, kScoreMod, kWriteLse, and scoreMod().
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
#include "attn/common.cuh"

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
  static constexpr bool kPositional = C::kCausal || C::kWindow;
  // Element-wise work on every tile, not only on boundary tiles.
  static constexpr bool kAlwaysElementwise = C::kKeep || C::kBias || C::kScoreMod;

  static_assert(kRowsPerWarp * C::kNumWarps == kBlockM,
                "the warps own the block's rows in whole m16 tiles");
  static_assert(kNTiles * 8 == kBlockN, "key tiles are whole n8 tiles");
  static_assert(C::kHeadDimQK % 8 == 0 && C::kHeadDimV % 8 == 0,
                "head dims are multiples of 8");

  struct Block {
    int b, h, hk, m0, qLast, kvEnd, diagOffset;
  };

  /// True if key k may take part for query q (positions and lengths only).
  static __device__ __forceinline__ bool positionAllowed(const FlashParams &p,
                                                         const Block &blk,
                                                         int q, int k) {
    return keyAllowed<C::kCausal, C::kWindow>(q, k, blk.kvEnd, blk.diagOffset,
                                              p.window_left, p.window_right);
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
            x = C::scoreMod(x, blk.b, blk.h, q, k, p.score_mod_captures);
          if (C::kBias && inside)
            x += ElementIO<typename C::BiasElement>::load(
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
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int rowBase = warp * kRowsPerWarp;
    Mma mma(smemRaw);

    Block blk;
    // Split-KV: consecutive blocks take consecutive parts of one query
    // block's key tiles.
    const int mBlocks = gridDim.x / p.num_splits;
    int mBlock = blockIdx.x / p.num_splits;
    // Positional masks make later query blocks longer: start those first.
    if (kPositional)
      mBlock = mBlocks - 1 - mBlock;
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
    int tileBegin = nBegin / kBlockN;
    int tileEnd = nEnd > nBegin ? (nEnd + kBlockN - 1) / kBlockN : tileBegin;
    if (p.num_splits > 1) {
      // This split's share; it may be empty (then it writes an empty row).
      const int share = (tileEnd - tileBegin + p.num_splits - 1) / p.num_splits;
      tileBegin = min(tileBegin + static_cast<int>(blockIdx.x % p.num_splits) * share, tileEnd);
      tileEnd = min(tileBegin + share, tileEnd);
    }
    const int numTiles = tileEnd - tileBegin;

    const u16 *q = static_cast<const u16 *>(p.q) + blk.b * p.q_strides[0] +
                   blk.h * p.q_strides[1] + blk.m0 * p.q_strides[2];
    const u16 *k = static_cast<const u16 *>(p.k) + blk.b * p.k_strides[0] +
                   blk.hk * p.k_strides[1];
    const u16 *v = static_cast<const u16 *>(p.v) + blk.b * p.v_strides[0] +
                   blk.hk * p.v_strides[1];

    // Tiles run from the last key tile to the first, so that the diagonal
    // (masked) tiles of a causal block come first.
    auto tileStart = [&](int i) { return (tileEnd - 1 - i) * kBlockN; };
    // cp.async group g: K of tile g and V of tile g - kLag (Q joins group 0).
    auto loadGroup = [&](int g) {
      if (g < numTiles) {
        const int n0 = tileStart(g);
        mma.loadK(g % kStages, C::kTransposeK ? k + n0 : k + n0 * p.k_strides[2],
                  p.k_strides[2], blk.kvEnd - n0);
      }
      if (g >= kLag && g - kLag < numTiles) {
        const int n0 = tileStart(g - kLag);
        mma.loadV((g - kLag) % kStages, v + n0 * p.v_strides[2], p.v_strides[2],
                  blk.kvEnd - n0);
      }
      commitAsync();
    };

    mma.loadQ(q, p.q_strides[2], p.seq_q - blk.m0);
#pragma unroll
    for (int g = 0; g < kStages - 1; ++g)
      loadGroup(g);

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
    // P of a tile, packed to the element type per k16 step.
    u32 pk[kMTiles][kBlockN / 16][4];
    int maskedTiles = 0;

    // Waits for group i (K_i and V_{i-kLag}); the barrier also means every
    // warp is past step i-1, so the stages it read are free for group
    // i + kStages - 1.
    auto beginStep = [&](int i) {
      waitAsync<kStages - 2>();
      mma.tileLanded();
      __syncthreads();
      loadGroup(i + kStages - 1);
    };
    // Masks S_i, updates the row statistics and exponentiates in place;
    // alpha rescales what O holds to the new maxima.
    auto softmax = [&](int i, float(&s)[kMTiles][kNTiles][4],
                       float(&alpha)[kMTiles][2]) {
      const int n0 = tileStart(i);
      if (kAlwaysElementwise || !tileIsFull(p, blk, n0)) {
        scoresToLogits<true>(p, blk, n0, rowBase, s);
        ++maskedTiles;
      } else {
        scoresToLogits<false>(p, blk, n0, rowBase, s);
      }
      // Each row lives in one quad (4 lanes).
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
          alpha[mt][half] = fastExp2(rowMax[mt][half] - base);
          rowMax[mt][half] = mx;
          float sum = 0.f;
#pragma unroll
          for (int j = 0; j < kNTiles; ++j)
#pragma unroll
            for (int e = 2 * half; e < 2 * half + 2; ++e) {
              s[mt][j][e] = fastExp2(s[mt][j][e] - base);
              sum += s[mt][j][e];
            }
          rowSum[mt][half] = rowSum[mt][half] * alpha[mt][half] + sum;
        }
    };
    auto pack = [&](const float(&s)[kMTiles][kNTiles][4]) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int kk = 0; kk < kBlockN / 16; ++kk)
          packP<Ops>(pk[mt][kk], s[mt], kk);
    };
    auto rescale = [&](const float(&alpha)[kMTiles][2]) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int d = 0; d < kOTiles; ++d)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            o[mt][d][e] *= alpha[mt][e / 2];
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

    // Epilogue: normalize, convert, store; rows past seq_q are dropped.
    // Split, each split stores its own normalized f32 output and
    // logsumexp for FlashCombine.
    const bool partial = p.num_splits > 1;
    u16 *out = static_cast<u16 *>(p.o) + blk.b * p.o_strides[0] +
               blk.h * p.o_strides[1];
    // Row r of (batch, head) in the [batch][heads_q][seq_q] order of lse.
    const i64 rowIndex0 = (static_cast<i64>(blk.b) * p.heads_q + blk.h) * p.seq_q;
    const i64 splitRows = static_cast<i64>(p.batch) * p.heads_q * p.seq_q;
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
        const float lse =
            sum > 0.f ? (rowMax[mt][half] + __log2f(sum)) * kLn2 : negInf();
        const i64 rowIndex = rowIndex0 + row;
        // The split index again rather than kept live through the main loop.
        const int split = blockIdx.x % p.num_splits;
        float *partialRow =
            partial ? p.partial_o + (split * splitRows + rowIndex) * C::kHeadDimV : nullptr;
#pragma unroll
        for (int d = 0; d < kOTiles; ++d) {
          int col = d * 8 + (lane % 4) * 2;
          if (d * 8 >= C::kHeadDimV)
            continue;
          float x = o[mt][d][2 * half] * inv, y = o[mt][d][2 * half + 1] * inv;
          if (partial)
            *reinterpret_cast<float2 *>(partialRow + col) = make_float2(x, y);
          else
            *reinterpret_cast<u32 *>(out + row * p.o_strides[2] + col) = Ops::pack(x, y);
        }
        if (lane % 4 == 0) {
          if (partial)
            p.partial_lse[(blockIdx.x % p.num_splits) * splitRows + rowIndex] = lse;
          else if (C::kWriteLse)
            p.lse[rowIndex] = lse;
        }
      }
  }
};

/// Merges the partial outputs of a split-KV launch: one warp per row of
/// [batch][heads_q][seq_q] (p as for an unsplit launch), weighting each
/// split's output by exp(its logsumexp - the row's). A row no split saw a
/// key for yields zeros and -inf.
template <class C> struct FlashCombine {
  static constexpr int kThreads = kCombineThreads, kRowsPerBlock = kThreads / 32;
  using Ops = ElementOps<typename C::Element>;

  static __device__ void run(const FlashParams &p) {
    const int lane = threadIdx.x % 32;
    const i64 rows = static_cast<i64>(p.batch) * p.heads_q * p.seq_q;
    const i64 r = static_cast<i64>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
    if (r >= rows)
      return;
    float maxLse = negInf();
    for (int s = 0; s < p.num_splits; ++s)
      maxLse = fmaxf(maxLse, p.partial_lse[s * rows + r]);
    float total = 0.f;
    for (int s = 0; s < p.num_splits; ++s) {
      float lse = p.partial_lse[s * rows + r];
      total += lse == negInf() ? 0.f : fastExp2((lse - maxLse) * kLog2e);
    }
    const float inv = total > 0.f ? 1.f / total : 0.f;
    const int i = static_cast<int>(r % p.seq_q);
    const int h = static_cast<int>(r / p.seq_q % p.heads_q);
    const int b = static_cast<int>(r / (static_cast<i64>(p.seq_q) * p.heads_q));
    u16 *out = static_cast<u16 *>(p.o) + b * p.o_strides[0] + h * p.o_strides[1] +
               i * p.o_strides[2];
    for (int d = 2 * lane; d < C::kHeadDimV; d += 64) {
      float x = 0.f, y = 0.f;
      for (int s = 0; s < p.num_splits; ++s) {
        float lse = p.partial_lse[s * rows + r];
        if (lse == negInf())
          continue;
        float w = fastExp2((lse - maxLse) * kLog2e) * inv;
        float2 part = *reinterpret_cast<const float2 *>(
            p.partial_o + (s * rows + r) * C::kHeadDimV + d);
        x += w * part.x;
        y += w * part.y;
      }
      *reinterpret_cast<u32 *>(out + d) = Ops::pack(x, y);
    }
    if (C::kWriteLse && lane == 0)
      p.lse[r] = total > 0.f ? maxLse + __logf(total) : negInf();
  }
};

} // namespace attn

