// Backward flash attention: what every variant shares. With
// P = exp(score_mod(scale q k^T) + bias - lse) (masked: 0), dP = dO v^T,
// D = rowsum(dO * O), dZ = P (dP - D) and dS = dZ score_mod'(scale q k^T):
//   dV = P^T dO, dK = scale dS^T Q, dQ = scale dS K, dbias = dZ.
//
// A backward is up to four launches (the runtime orders them on a stream):
//   FlashBackwardPre     D of every row; zeroes the dQ (and dbias) sums
//   <variant> FlashBackwardKV   K/V-stationary: dK, dV (and dbias) of a
//                        block of keys, summed over the query heads of its
//                        K/V head; dQ / scale added with f32 atomics
//   <variant> FlashBackwardQ    (deterministic mode, instead of the atomics)
//                        Q-stationary: dQ of a block of queries
//   FlashBackwardConvert dQ (and summed dbias) to their element types
//
// The configuration C binds typed constants (see the emitted source):
//   Element, BiasElement, kHeadDimQK, kHeadDimV, kBlockM, kBlockN,
//   kNumWarps, kStages, kCausal, kBottomRight, kWindow, kKeyPadding, kKeep,
//   kBias, kBiasGrad, kScoreMod, scoreMod() and scoreModGrad().
#pragma once
#include "attn/common.cuh"
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

/// The masks, score_mod and bias of the backward, and the element-wise step
/// that turns a score and its dP into P and dS.
template <class C> struct BackwardScores {
  static constexpr bool kPositional = C::kCausal || C::kWindow;
  // Element-wise indices on every tile, not only on boundary tiles.
  static constexpr bool kAlwaysIndexed = C::kKeep || C::kBias || C::kScoreMod;

  struct Head {
    int b, h, kvEnd, diagOffset;
  };

  static __device__ __forceinline__ Head head(const FlashBwdParams &p, int b,
                                              int h) {
    Head hd;
    hd.b = b;
    hd.h = h;
    hd.kvEnd = C::kKeyPadding ? min(p.seq_kv, max(p.lengths[b], 0)) : p.seq_kv;
    hd.diagOffset = C::kBottomRight ? p.seq_kv - p.seq_q : 0;
    return hd;
  }

  /// True if every (query, key) of [m0, m0 + rows) x [n0, n0 + cols) takes
  /// part: no element-wise masking needed.
  static __device__ __forceinline__ bool tileIsFull(const FlashBwdParams &p,
                                                    const Head &hd, int m0,
                                                    int rows, int n0, int cols) {
    bool full = m0 + rows <= p.seq_q && n0 + cols <= hd.kvEnd;
    const int lastKey = n0 + cols - 1, lastQuery = m0 + rows - 1;
    if (C::kCausal)
      full = full && lastKey <= m0 + hd.diagOffset;
    if (C::kWindow) {
      if (p.window_right >= 0)
        full = full && lastKey <= m0 + hd.diagOffset + p.window_right;
      if (p.window_left >= 0)
        full = full && n0 >= lastQuery + hd.diagOffset - p.window_left;
    }
    return full;
  }

  /// The queries [begin, end) that may see a key of [n0, n0 + cols).
  static __device__ __forceinline__ void queryRange(const FlashBwdParams &p,
                                                    const Head &hd, int n0,
                                                    int cols, int &begin,
                                                    int &end) {
    begin = 0;
    end = p.seq_q;
    const int lastKey = min(n0 + cols, hd.kvEnd) - 1;
    if (lastKey < n0) {
      end = 0; // no valid key in the block
      return;
    }
    if (C::kCausal)
      begin = max(begin, n0 - hd.diagOffset);
    if (C::kWindow) {
      if (p.window_right >= 0)
        begin = max(begin, n0 - hd.diagOffset - p.window_right);
      if (p.window_left >= 0)
        end = min(end, lastKey - hd.diagOffset + p.window_left + 1);
    }
    end = max(end, begin);
  }

  /// The keys [begin, end) that queries [m0, m0 + rows) may see.
  static __device__ __forceinline__ void keyRange(const FlashBwdParams &p,
                                                  const Head &hd, int m0,
                                                  int rows, int &begin,
                                                  int &end) {
    const int lastQuery = min(m0 + rows, p.seq_q) - 1;
    begin = 0;
    end = hd.kvEnd;
    if (C::kCausal)
      end = min(end, lastQuery + hd.diagOffset + 1);
    if (C::kWindow) {
      if (p.window_right >= 0)
        end = min(end, lastQuery + hd.diagOffset + p.window_right + 1);
      if (p.window_left >= 0)
        begin = max(0, m0 + hd.diagOffset - p.window_left);
    }
    end = max(end, begin);
  }

  /// One score: `s` holds q.k and becomes P; `dp` holds dP and becomes dS.
  /// lseLog2 is the row's logsumexp in base 2 (-inf: the row sees no key),
  /// delta its D. With kIndexed, masks, bias and score_mod apply (and, with
  /// kWriteBiasGrad, the bias gradient is written); otherwise the element is
  /// known to take part.
  template <bool kIndexed, bool kWriteBiasGrad>
  static __device__ __forceinline__ void apply(const FlashBwdParams &p,
                                               const Head &hd, int q, int k,
                                               float lseLog2, float delta,
                                               float &s, float &dp) {
    float x = s * p.scale;
    if (!kIndexed) {
      s = fastExp2(x * kLog2e - lseLog2);
      dp = s * (dp - delta);
      return;
    }
    const bool inside = q < p.seq_q && k < p.seq_kv;
    float slope = 1.f;
    if (C::kScoreMod) {
      slope = C::scoreModGrad(x, hd.b, hd.h, q, k);
      x = C::scoreMod(x, hd.b, hd.h, q, k);
    }
    if (C::kBias && inside)
      x += ElementIO<typename C::BiasElement>::load(
          p.bias, hd.b * p.bias_strides[0] + hd.h * p.bias_strides[1] +
                      q * p.bias_strides[2] + k * p.bias_strides[3]);
    bool ok = inside && lseLog2 != negInf() &&
              keyAllowed<C::kCausal, C::kWindow>(q, k, hd.kvEnd, hd.diagOffset,
                                                 p.window_left, p.window_right);
    if (C::kKeep)
      ok = ok && p.keep[hd.b * p.keep_strides[0] + hd.h * p.keep_strides[1] +
                        q * p.keep_strides[2] + k * p.keep_strides[3]] != 0;
    const float prob = ok ? fastExp2(x * kLog2e - lseLog2) : 0.f;
    const float dz = prob * (dp - delta);
    if (C::kBiasGrad && kWriteBiasGrad && prob != 0.f) {
      if (p.dbias_accum)
        atomicAdd(p.dbias_accum + hd.b * p.dbias_accum_strides[0] +
                      hd.h * p.dbias_accum_strides[1] +
                      q * p.dbias_accum_strides[2] + k * p.dbias_accum_strides[3],
                  dz);
      else
        ElementIO<typename C::BiasElement>::store(
            p.dbias,
            hd.b * p.dbias_strides[0] + hd.h * p.dbias_strides[1] +
                q * p.dbias_strides[2] + k * p.dbias_strides[3],
            dz);
    }
    s = prob;
    // A dropped entry contributes nothing, even where score_mod' is not
    // finite there.
    dp = prob != 0.f ? dz * slope : 0.f;
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

/// D = rowsum(dO * O) per row of [batch][heads_q][seq_q], one warp a row;
/// zeroes the row's dQ sum (atomic mode), and, over the grid, the dbias sum
/// or the dbias written in place.
template <class C> struct FlashBackwardPre {
  static __device__ void run(const FlashBwdParams &p) {
    const int lane = threadIdx.x % 32;
    const i64 rows = static_cast<i64>(p.batch) * p.heads_q * p.seq_q;
    const i64 r = static_cast<i64>(blockIdx.x) * (kBackwardRowThreads / 32) +
                  threadIdx.x / 32;
    if (r < rows) {
      const int i = static_cast<int>(r % p.seq_q);
      const int h = static_cast<int>(r / p.seq_q % p.heads_q);
      const int b = static_cast<int>(r / (static_cast<i64>(p.seq_q) * p.heads_q));
      const u16 *o = static_cast<const u16 *>(p.o) + b * p.o_strides[0] +
                     h * p.o_strides[1] + i * p.o_strides[2];
      const u16 *dout = static_cast<const u16 *>(p.dout) + b * p.dout_strides[0] +
                        h * p.dout_strides[1] + i * p.dout_strides[2];
      using Ops = ElementOps<typename C::Element>;
      float sum = 0.f;
      for (int d = lane; d < C::kHeadDimV; d += 32)
        sum += Ops::toFloat(o[d]) * Ops::toFloat(dout[d]);
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      if (lane == 0)
        p.delta[r] = sum;
      if (p.dq_accum)
        for (int d = lane; d < C::kHeadDimQK; d += 32)
          p.dq_accum[r * C::kHeadDimQK + d] = 0.f;
    }
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

/// dQ = scale * the f32 sum, in the element type (atomic mode), one warp a
/// row; and the summed dbias to its element type.
template <class C> struct FlashBackwardConvert {
  static __device__ void run(const FlashBwdParams &p) {
    const int lane = threadIdx.x % 32;
    const i64 rows = static_cast<i64>(p.batch) * p.heads_q * p.seq_q;
    const i64 r = static_cast<i64>(blockIdx.x) * (kBackwardRowThreads / 32) +
                  threadIdx.x / 32;
    if (p.dq_accum && r < rows) {
      const int i = static_cast<int>(r % p.seq_q);
      const int h = static_cast<int>(r / p.seq_q % p.heads_q);
      const int b = static_cast<int>(r / (static_cast<i64>(p.seq_q) * p.heads_q));
      const i64 dq = b * p.dq_strides[0] + h * p.dq_strides[1] + i * p.dq_strides[2];
      for (int d = lane; d < C::kHeadDimQK; d += 32)
        ElementIO<typename C::Element>::store(
            p.dq, dq + d, p.dq_accum[r * C::kHeadDimQK + d] * p.scale);
    }
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
};

} // namespace attn
