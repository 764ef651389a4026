// The epilogue of a forward kernel: normalize the output accumulators, write
// O (or, for split-KV, the split's f32 partial output) and the logsumexp;
// and FlashCombine, which merges the partials of a split launch.
#pragma once
#include "attn/softmax.cuh"

namespace attn {

template <class C> struct Epilogue {
  using Ops = ElementOps<typename C::Element>;

  /// Stores the rows of m16n8 accumulators o (m-tile mt holds rows
  /// m0 + rowBase + 16 mt + ...) of query head h of batch b; rows past
  /// seq_q are dropped. With several splits, the split's normalized f32
  /// output and logsumexp go to the partial buffers for FlashCombine.
  template <int kMTiles, int kNTiles, int kOTiles>
  static __device__ __forceinline__ void
  store(const FlashParams &p, int b, int h, int m0, int rowBase, int split,
        const float (&o)[kMTiles][kOTiles][4],
        const OnlineSoftmax<kMTiles, kNTiles> &softmax) {
    const int lane = threadIdx.x % 32;
    const bool partial = p.schedule.splits > 1;
    u16 *out = static_cast<u16 *>(p.o) + b * p.o_strides[0] + h * p.o_strides[1];
    // Row r of (batch, head) in the [batch][heads_q][seq_q] order of lse.
    const i64 rowIndex0 = (static_cast<i64>(b) * p.heads_q + h) * p.seq_q;
    const i64 splitRows = static_cast<i64>(p.batch) * p.heads_q * p.seq_q;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const float total = softmax.rowTotal(mt, half);
        const float inv = softmax.normalizer(total);
        int row = m0 + rowBase + mt * 16 + lane / 4 + half * 8;
        if (row >= p.seq_q)
          continue;
        const float lse = softmax.logSumExp(mt, half, total);
        const i64 rowIndex = rowIndex0 + row;
        float *partialRow =
            partial ? p.partial_o + (split * splitRows + rowIndex) * C::kHeadDimV
                    : nullptr;
#pragma unroll
        for (int d = 0; d < kOTiles; ++d) {
          int col = d * 8 + (lane % 4) * 2;
          if (d * 8 >= C::kHeadDimV)
            continue;
          float x = o[mt][d][2 * half] * inv, y = o[mt][d][2 * half + 1] * inv;
          if (partial)
            *reinterpret_cast<float2 *>(partialRow + col) = make_float2(x, y);
          else
            *reinterpret_cast<u32 *>(out + row * p.o_strides[2] + col) =
                Ops::pack(x, y);
        }
        if (lane % 4 == 0) {
          if (partial)
            p.partial_lse[split * splitRows + rowIndex] = lse;
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
    const int splits = p.schedule.splits;
    const i64 rows = static_cast<i64>(p.batch) * p.heads_q * p.seq_q;
    const i64 r = static_cast<i64>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
    if (r >= rows)
      return;
    float maxLse = negInf();
    for (int s = 0; s < splits; ++s)
      maxLse = fmaxf(maxLse, p.partial_lse[s * rows + r]);
    float total = 0.f;
    for (int s = 0; s < splits; ++s) {
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
      for (int s = 0; s < splits; ++s) {
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
