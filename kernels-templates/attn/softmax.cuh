// Online softmax in base 2 over the m16n8 accumulator layout that mma.sync
// and wgmma share: each thread holds two rows of each 16-row m-tile (lane / 4
// and lane / 4 + 8), each row spread over the 4 lanes of a quad.
//
// The row maxima are reduced across the quad at every tile (the exponent
// needs them); the row sums stay per thread until finalize.
#pragma once
#include "attn/common.cuh"

namespace attn {

template <int kMTiles, int kNTiles> struct OnlineSoftmax {
  float rowMax[kMTiles][2], rowSum[kMTiles][2];

  __device__ __forceinline__ void init() {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
      rowMax[mt][0] = rowMax[mt][1] = negInf();
      rowSum[mt][0] = rowSum[mt][1] = 0.f;
    }
  }

  /// Takes a tile of scores s that become base-2 logits when multiplied by
  /// logitScale (> 0; 1 when s already holds logits), raises the row maxima,
  /// exponentiates s in place against them and adds it to the row sums;
  /// alpha is what earlier tiles' output must be scaled by. Scaling inside
  /// the exponent's FFMA saves a multiply per score on full tiles.
  __device__ __forceinline__ void update(float (&s)[kMTiles][kNTiles][4],
                                         float (&alpha)[kMTiles][2],
                                         float logitScale = 1.f) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        // Four partial maxima, not one chain: the FMNMX latency is a
        // quarter of the row's length.
        float mx[4] = {negInf(), negInf(), negInf(), negInf()};
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
          mx[j % 4] = fmaxf(mx[j % 4],
                            fmaxf(s[mt][j][2 * half], s[mt][j][2 * half + 1]));
        float tileMax = fmaxf(fmaxf(mx[0], mx[1]), fmaxf(mx[2], mx[3]));
        tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 1));
        tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 2));
        const float newMax = fmaxf(rowMax[mt][half], tileMax * logitScale);
        // A row with no allowed key so far keeps max -inf; exponentiate
        // against 0 so that -inf - -inf never makes a NaN.
        const float base = newMax == negInf() ? 0.f : newMax;
        alpha[mt][half] = fastExp2(rowMax[mt][half] - base);
        rowMax[mt][half] = newMax;
        // Four partial sums: a chain of one FADD per score would serialize.
        float sum[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
#pragma unroll
          for (int e = 2 * half; e < 2 * half + 2; ++e) {
            s[mt][j][e] = fastExp2(fmaf(s[mt][j][e], logitScale, -base));
            sum[(2 * j + e) % 4] += s[mt][j][e];
          }
        rowSum[mt][half] = rowSum[mt][half] * alpha[mt][half] +
                           ((sum[0] + sum[1]) + (sum[2] + sum[3]));
      }
  }

  /// Scales an output accumulator by alpha, row by row.
  template <int kOTiles>
  static __device__ __forceinline__ void
  rescale(float (&o)[kMTiles][kOTiles][4], const float (&alpha)[kMTiles][2]) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int d = 0; d < kOTiles; ++d)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o[mt][d][e] *= alpha[mt][e / 2];
  }

  /// The row's total weight, reduced over its quad (0 if no key was
  /// allowed), and from it the factor that normalizes the output.
  __device__ __forceinline__ float rowTotal(int mt, int half) const {
    float sum = rowSum[mt][half];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    return sum;
  }
  static __device__ __forceinline__ float normalizer(float total) {
    return total > 0.f ? 1.f / total : 0.f;
  }
  /// The natural-log logsumexp of the row's logits (-inf if none).
  __device__ __forceinline__ float logSumExp(int mt, int half,
                                             float total) const {
    return total > 0.f ? (rowMax[mt][half] + __log2f(total)) * kLn2 : negInf();
  }
};

/// The m16k16 A fragments of P for every k16 step of a tile, packed from the
/// exponentiated scores to the element type.
template <class Ops, int kMTiles, int kNTiles>
__device__ __forceinline__ void packTile(u32 (&pk)[kMTiles][kNTiles / 2][4],
                                         const float (&s)[kMTiles][kNTiles][4]) {
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int kk = 0; kk < kNTiles / 2; ++kk)
      packP<Ops>(pk[mt][kk], s[mt], kk);
}

} // namespace attn
