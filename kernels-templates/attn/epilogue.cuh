// The epilogue of a forward kernel: normalize the output accumulators, write
// O (or, for split-KV, the split's f32 partial output) and the logsumexp;
// and FlashCombine, which merges the partials of a split launch.
#pragma once
#include "attn/mask.cuh"
#include "attn/softmax.cuh"

namespace attn {

/// Joins an attention sink (a natural-log logit) to a row whose scores
/// have the base-2 maximum `rowMax` (-inf: no key) and total weight `total`
/// against it: the normalizer `inv` of the output accumulated against
/// rowMax, and the logsumexp, both with the sink in the denominator.
__device__ __forceinline__ void addSink(float sink, float rowMax, float total,
                                        float &inv, float &lse) {
  const float sink2 = sink * kLog2e;
  const float top = fmaxf(rowMax, sink2);
  if (top == negInf()) {
    inv = 0.f;
    lse = negInf();
    return;
  }
  const float kept = rowMax == negInf() ? 0.f : fastExp2(rowMax - top);
  const float all = total * kept + fastExp2(sink2 - top);
  inv = kept / all;
  lse = (top + __log2f(all)) * kLn2;
}

template <class C> struct Epilogue {
  using Ops = ElementOps<typename C::Element>;

  /// The factor that normalizes row (mt, half) of the accumulators and the
  /// row's logsumexp, with the sink of its query head in the denominator
  /// unless the output is a split's partial (FlashCombine adds it) or the
  /// row is past the sequence. Every lane of the warp calls it (the row
  /// total is reduced across the quad).
  template <int kMTiles, int kNTiles>
  static __device__ __forceinline__ void
  rowScale(const FlashParams &p, const OnlineSoftmax<kMTiles, kNTiles> &softmax,
           int mt, int half, int h, int head, int row, bool inSequence,
           bool partial, float &inv, float &lse) {
    const float total = softmax.rowTotal(mt, half);
    inv = softmax.normalizer(total);
    lse = softmax.logSumExp(mt, half, total);
    if (C::kSinks && !partial && inSequence)
      addSink(p.sinks[C::kPackGroup > 1
                          ? head
                          : h * p.sink_strides[0] + row * p.sink_strides[1]],
              softmax.rowMax[mt][half], total, inv, lse);
  }

  /// Stores the rows of m16n8 accumulators o (m-tile mt holds rows
  /// m0 + rowBase + 16 mt + ...) of launch head h of batch b (packed rows:
  /// each row's token and query head, PackedRow); rows past seq_q are
  /// dropped. With several splits, the split's normalized f32 output and
  /// logsumexp go to the partial buffers for FlashCombine.
  template <int kMTiles, int kNTiles, int kOTiles>
  static __device__ __forceinline__ void
  store(const FlashParams &p, int b, int h, int m0, int rowBase, int split,
        const float (&o)[kMTiles][kOTiles][4],
        const OnlineSoftmax<kMTiles, kNTiles> &softmax) {
    const int lane = threadIdx.x % 32;
    const bool partial = p.schedule.splits > 1;
    // Row r of the sequence: row qStart + r of o (a ragged batch's o has no
    // batch stride), and of (batch, head) in the [batch][heads_q][seq_q]
    // order of lse, which a ragged batch has as [heads_q][seq_q].
    const SequenceExtent e = sequenceExtent<C>(p, b);
    const int lseBatch = C::kVarlen ? 0 : b;
    u16 *out = static_cast<u16 *>(p.o) + b * p.o_strides[0] +
               e.qStart * p.o_strides[2];
    const i64 splitRows =
        static_cast<i64>(C::kVarlen ? 1 : p.batch) * p.heads_q * p.seq_q;
    // 16-byte stores where whole groups of 4 column tiles cover the head
    // dim and every row starts 16-byte aligned (a uniform choice: the
    // quad's lanes exchange words).
    const bool vectorized =
        !partial && kOTiles % 4 == 0 && kOTiles * 8 == C::kHeadDimV &&
        ((reinterpret_cast<unsigned long long>(out) |
          static_cast<unsigned long long>(p.o_strides[1] | p.o_strides[2]) *
              sizeof(u16)) %
         16) == 0;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = m0 + rowBase + mt * 16 + lane / 4 + half * 8;
        const PackedRow<C> packed(r, h);
        const int row = packed.q, head = packed.head;
        float inv, lse;
        const bool inSequence = row < e.seqQ;
        rowScale(p, softmax, mt, half, h, head, row, inSequence, partial, inv,
                 lse);
        const i64 rowIndex =
            (static_cast<i64>(lseBatch) * p.heads_q + head) * p.seq_q +
            e.qStart + row;
        float *partialRow =
            partial ? p.partial_o + (split * splitRows + rowIndex) * C::kHeadDimV
                    : nullptr;
        u16 *rowOut = out + head * p.o_strides[1] + row * p.o_strides[2];
        if constexpr (kOTiles % 4 == 0) {
          if (vectorized)
            storeRowVectorized<Ops>(rowOut, o[mt], half, inv, inSequence);
        }
        if (!inSequence)
          continue;
        if (!vectorized) {
#pragma unroll
          for (int d = 0; d < kOTiles; ++d) {
            int col = d * 8 + (lane % 4) * 2;
            if (d * 8 >= C::kHeadDimV)
              continue;
            float x = o[mt][d][2 * half] * inv, y = o[mt][d][2 * half + 1] * inv;
            if (partial)
              *reinterpret_cast<float2 *>(partialRow + col) = make_float2(x, y);
            else
              *reinterpret_cast<u32 *>(rowOut + col) = Ops::pack(x, y);
          }
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

/// True if some sequence of a ragged batch holds packed row `row` (offsets
/// in order; with others, any answer stays in bounds): the largest b with
/// cu_seqlens_q[b] <= row, found by bisection, and its end.
__device__ __forceinline__ bool varlenRowCovered(const FlashParams &p,
                                                 int row) {
  int lo = 0, hi = p.batch; // the answer lies in [lo, hi)
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (p.cu_seqlens_q[mid] <= row)
      lo = mid;
    else
      hi = mid;
  }
  return p.cu_seqlens_q[lo] <= row && row < p.cu_seqlens_q[lo + 1];
}

/// Merges the partial outputs of a split-KV launch: one warp per row of
/// [batch][heads_q][seq_q] (p as for an unsplit launch; a ragged batch's
/// rows as [1][heads_q][packed rows], those of no sequence skipped),
/// weighting each split's output by exp(its logsumexp - the row's), with
/// the sink of the row's head in the denominator. A row no split saw a key
/// for yields zeros and -inf (the sink, with one).
template <class C> struct FlashCombine {
  static constexpr int kThreads = kCombineThreads, kRowsPerBlock = kThreads / 32;
  using Ops = ElementOps<typename C::Element>;

  static __device__ void run(const FlashParams &p) {
    const int lane = threadIdx.x % 32;
    const int splits = p.schedule.splits;
    const i64 rows =
        static_cast<i64>(C::kVarlen ? 1 : p.batch) * p.heads_q * p.seq_q;
    const i64 r = static_cast<i64>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
    if (r >= rows)
      return;
    const int i = static_cast<int>(r % p.seq_q);
    const int h = static_cast<int>(r / p.seq_q % p.heads_q);
    const int b = static_cast<int>(r / (static_cast<i64>(p.seq_q) * p.heads_q));
    if (C::kVarlen && !varlenRowCovered(p, i))
      return; // no split wrote it
    float maxLse = negInf();
    for (int s = 0; s < splits; ++s)
      maxLse = fmaxf(maxLse, p.partial_lse[s * rows + r]);
    // The sink of the row's query head joins the denominator once, here
    // (the splits' partials leave it out).
    const float sink = C::kSinks ? p.sinks[h] : negInf();
    maxLse = fmaxf(maxLse, sink);
    float total = 0.f;
    for (int s = 0; s < splits; ++s) {
      float lse = p.partial_lse[s * rows + r];
      total += lse == negInf() ? 0.f : fastExp2((lse - maxLse) * kLog2e);
    }
    if (C::kSinks && maxLse != negInf())
      total += fastExp2((sink - maxLse) * kLog2e);
    const float inv = total > 0.f ? 1.f / total : 0.f;
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
