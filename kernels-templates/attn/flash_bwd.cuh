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
//   <variant> FlashBackwardQ    (deterministic mode, or where the variant's
//                        atomics are slower, instead of them)
//                        Q-stationary: dQ of a block of queries
//   FlashBackwardConvert dQ (and summed dbias) to their element types
//
// The configuration C binds typed constants (see the emitted source):
//   Element, BiasElement, kHeadDimQK, kHeadDimV, kBlockM, kBlockN,
//   kNumWarps, kStages, kCausal, kBottomRight, kWindow, kKeyPadding, kKeep,
//   kBias, kBiasGrad, kScoreMod, scoreMod() and scoreModGrad() (the
//   score_mod region and its derivative, reading the captures).
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
/// and issues step t + 1's loads. loadStep(t, stage) issues step t's
/// copies; landed() runs between the wait and the barrier.
template <int kStages> struct StepPipeline {
  static_assert(kStages == 1 || kStages == 2, "one or two Q/dO stages");
  template <class Load>
  static __device__ __forceinline__ void start(int steps, Load &&loadStep) {
    if (kStages == 2 && steps > 0)
      loadStep(0, 0);
    commitAsync();
  }
  /// Step t's stage, once its tiles are there.
  template <class Load, class Landed>
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
    if (kStages == 2 && t + 1 < steps) {
      loadStep(t + 1, (t + 1) % 2);
      commitAsync();
    }
    return stage;
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
    const bool inside = q < p.seq_q && k < p.seq_kv;
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
    return mask.m0 + rows <= p.seq_q && mask.tileIsFull(p, n0, cols);
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
