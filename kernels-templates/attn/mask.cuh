// The mask policy of the attention kernels: which key tiles a work tile must
// visit (and, for the backward's K/V-stationary kernel, which queries a key
// tile must visit), which of them need element-wise masking, and the
// element-wise step that turns raw q.k scores into base-2 logits (scale,
// score_mod, bias, the positional masks, keep). The backward
// (flash_bwd.cuh) applies the same rules to its scores.
//
// The configuration C supplies kCausal, kBottomRight, kBottomRightTensor,
// kWindow, kKeyPadding, kKeep, kBias, kScoreMod, kVarlen, kPaged, kPackGroup, BiasElement and
// scoreMod(). The launch's parameters P are FlashParams, or FlashBwdParams
// for the backward: both have the fields read here (seq_q, seq_kv, lengths,
// window_left, window_right, keep, bias and their strides,
// score_mod_captures, the ragged batch's offsets); the batch-invariant
// splits are the forward's alone.
//
// Packed rows (C::kPackGroup = G > 1, decode of a few tokens with GQA): a
// launch head is a K/V head and its rows are (token, query head) pairs,
// token-major: row r is token r / G of query head h * G + r % G, so that
// every query head of the K/V head shares the block's K and V tiles. Masks,
// score_mod, bias, keep and the epilogue index by the token and the query
// head of each row (PackedRow).
#pragma once
#include "attn/common.cuh"

namespace attn {

/// Where batch entry b's queries and keys lie along the sequence dimension
/// of q/o and k/v: a ragged batch's sequence at its clamped offsets
/// (params.h), else the whole padded sequences.
struct SequenceExtent {
  int qStart, seqQ, kStart, seqKV;
};
template <class C, class P>
__device__ __forceinline__ SequenceExtent sequenceExtent(const P &p, int b) {
  if constexpr (!C::kVarlen) {
    return {0, p.seq_q, 0, p.seq_kv};
  } else {
    SequenceExtent e;
    e.qStart = min(max(p.cu_seqlens_q[b], 0), p.seq_q);
    e.seqQ = min(max(p.cu_seqlens_q[b + 1], e.qStart), p.seq_q) - e.qStart;
    e.kStart = min(max(p.cu_seqlens_k[b], 0), p.seq_kv);
    e.seqKV = min(max(p.cu_seqlens_k[b + 1], e.kStart), p.seq_kv) - e.kStart;
    return e;
  }
}

/// The fixed key tiles of each split in the batch-invariant mode (0: shares
/// of the tiles a work tile visits); only the forward has the mode.
__device__ __forceinline__ int fixedSplitTiles(const FlashParams &p) {
  return p.split_tiles;
}
template <class P> __device__ __forceinline__ int fixedSplitTiles(const P &) {
  return 0;
}

/// The query (token) and query head of row `row` of launch head h.
template <class C> struct PackedRow {
  int q, head;
  __device__ __forceinline__ PackedRow(int row, int h) {
    q = C::kPackGroup > 1 ? row / C::kPackGroup : row;
    head = C::kPackGroup > 1 ? h * C::kPackGroup + row % C::kPackGroup : h;
  }
};

template <class C> struct Mask {
  static_assert(!(C::kVarlen && C::kPaged),
                "a ragged batch's keys are packed, not paged");
  static_assert(C::kPackGroup == 1 || !C::kVarlen,
                "a ragged batch's rows are its sequences' queries");

  /// Work tile (batch, launch head) and its first row m0; its queries
  /// (tokens, counted from the sequence's first, qStart()) [qFirst, qLast]
  /// (with packed rows, those of the rows' tokens).
  int b, h, m0, qFirst, qLast;
  /// A ragged batch's sequence (dense ones read the parameters instead,
  /// which keeps the members out of registers).
  SequenceExtent sequence;
  /// Keys at or past kvEnd are padding (key_padding lengths, or seqKV).
  int kvEnd;
  /// The diagonal of query q is key q + diagOffset (bottom-right:
  /// kvEnd - Sq).
  int diagOffset;

  static constexpr bool kPositional = C::kCausal || C::kWindow;
  /// Element-wise work on every tile, not only on boundary tiles.
  static constexpr bool kAlwaysElementwise =
      C::kKeep || C::kBias || C::kScoreMod;

  template <class P>
  __device__ __forceinline__ Mask(const P &p, int batch, int head,
                                  int firstRow, int blockM) {
    b = batch;
    h = head;
    m0 = firstRow;
    if (C::kVarlen)
      sequence = sequenceExtent<C, P>(p, b);
    // Packed rows are token-major: the block's tokens are those of its
    // first and last rows.
    qFirst = PackedRow<C>(m0, 0).q;
    qLast = PackedRow<C>(min(m0 + blockM, seqQ(p) * C::kPackGroup) - 1, 0).q;
    kvEnd = seqKV(p);
    if (C::kKeyPadding)
      kvEnd = min(seqKV(p), max(p.lengths[b], 0));
    // Bottom-right: each sequence's own last key (with key padding, a
    // padded cache's sequences end at their lengths), or with
    // kBottomRightTensor the last key of the tensor.
    diagOffset =
        C::kBottomRight ? (C::kBottomRightTensor ? seqKV(p) : kvEnd) - seqQ(p)
                        : 0;
  }

  /// The sequence's queries and keys and where they start along the
  /// sequence dimension of q/o and k/v (sequenceExtent).
  template <class P> __device__ __forceinline__ int seqQ(const P &p) const {
    return C::kVarlen ? sequence.seqQ : p.seq_q;
  }
  template <class P> __device__ __forceinline__ int seqKV(const P &p) const {
    return C::kVarlen ? sequence.seqKV : p.seq_kv;
  }
  __device__ __forceinline__ int qStart() const {
    return C::kVarlen ? sequence.qStart : 0;
  }
  __device__ __forceinline__ int kStart() const {
    return C::kVarlen ? sequence.kStart : 0;
  }

  /// The key tiles [begin, end) of blockN keys that this tile's split must
  /// visit: those any of its rows can see, cut into `splits` equal shares,
  /// or (batch-invariant, p.split_tiles) at fixed tiles of the sequence (a
  /// share may be empty; its split then writes an empty row).
  template <class P>
  __device__ __forceinline__ void keyTiles(const P &p, int blockN,
                                           int split, int splits, int &begin,
                                           int &end) const {
    int nBegin = 0, nEnd = kvEnd;
    if (C::kCausal)
      nEnd = min(nEnd, qLast + diagOffset + 1);
    if (C::kWindow) {
      if (p.window_right >= 0)
        nEnd = min(nEnd, qLast + diagOffset + p.window_right + 1);
      if (p.window_left >= 0)
        nBegin = max(0, qFirst + diagOffset - p.window_left);
    }
    begin = nBegin / blockN;
    end = nEnd > nBegin ? (nEnd + blockN - 1) / blockN : begin;
    const int splitTiles = fixedSplitTiles(p);
    if (splits > 1 && splitTiles > 0) {
      // Batch-invariant: the split's fixed tiles, intersected.
      const int first = split * splitTiles;
      const int lo = max(begin, first), hi = min(end, first + splitTiles);
      begin = min(lo, end);
      end = max(hi, begin);
    } else if (splits > 1) {
      const int share = (end - begin + splits - 1) / splits;
      begin = min(begin + split * share, end);
      end = min(begin + share, end);
    }
  }

  /// The queries [begin, end) that may see a key of [n0, n0 + cols), for a
  /// kernel that sweeps the queries of a block of keys (the backward's
  /// K/V-stationary one): the inverse of keyTiles' rule. Independent of the
  /// tile's rows (only b and the mask matter).
  template <class P>
  __device__ __forceinline__ void queryRange(const P &p, int n0, int cols,
                                             int &begin, int &end) const {
    begin = 0;
    end = seqQ(p);
    const int lastKey = min(n0 + cols, kvEnd) - 1;
    if (lastKey < n0) {
      end = 0; // no key of the block takes part
      return;
    }
    if (C::kCausal)
      begin = max(begin, n0 - diagOffset);
    if (C::kWindow) {
      if (p.window_right >= 0)
        begin = max(begin, n0 - diagOffset - p.window_right);
      if (p.window_left >= 0)
        end = min(end, lastKey - diagOffset + p.window_left + 1);
    }
    end = max(end, begin);
  }

  /// True if key k may take part for query q (positions and lengths only).
  template <class P>
  __device__ __forceinline__ bool positionAllowed(const P &p, int q,
                                                  int k) const {
    return keyAllowed<C::kCausal, C::kWindow>(q, k, kvEnd, diagOffset,
                                              p.window_left, p.window_right);
  }

  /// True if every key of the blockN keys at n0 is allowed for every row.
  template <class P>
  __device__ __forceinline__ bool tileIsFull(const P &p, int n0,
                                             int blockN) const {
    bool full = n0 + blockN <= kvEnd;
    if (C::kCausal)
      full = full && n0 + blockN - 1 <= qFirst + diagOffset;
    if (C::kWindow) {
      if (p.window_right >= 0)
        full = full && n0 + blockN - 1 <= qFirst + diagOffset + p.window_right;
      if (p.window_left >= 0)
        full = full && n0 >= qLast + diagOffset - p.window_left;
    }
    return full;
  }

  /// The key tiles [lo, hi) of blockN keys that tileIsFull holds for (the
  /// conditions bound the tile index from above and below, so they are a
  /// range, perhaps empty); none where every tile is masked element-wise.
  template <class P>
  __device__ __forceinline__ void fullTiles(const P &p, int blockN, int &lo,
                                            int &hi) const {
    // Floor and ceiling division for numerators of either sign.
    auto below = [&](int x) { return x >= 0 ? x / blockN : -((blockN - 1 - x) / blockN); };
    auto above = [&](int x) { return -below(-x); };
    lo = 0;
    hi = kAlwaysElementwise ? 0 : below(kvEnd);
    if (C::kCausal)
      hi = min(hi, below(qFirst + diagOffset + 1));
    if (C::kWindow) {
      if (p.window_right >= 0)
        hi = min(hi, below(qFirst + diagOffset + p.window_right + 1));
      if (p.window_left >= 0)
        lo = max(lo, above(qLast + diagOffset - p.window_left));
    }
  }

  /// The keys [lo, hi) query q may see under the positional masks and the
  /// key padding (the same rule as positionAllowed, once per row).
  template <class P>
  __device__ __forceinline__ void rowRange(const P &p, int q, int &lo,
                                           int &hi) const {
    const int diag = q + diagOffset;
    lo = 0;
    hi = kvEnd;
    if (C::kCausal)
      hi = min(hi, diag + 1);
    if (C::kWindow) {
      // The runtime clamps the bounds to seq_q + seq_kv (which changes no
      // mask), so these sums stay in range.
      if (p.window_right >= 0)
        hi = min(hi, diag + 1 + p.window_right);
      if (p.window_left >= 0)
        lo = max(lo, diag - p.window_left);
    }
  }

  /// The additive bias of (q, k) of query head `head` (the tile's, h,
  /// unless rows are packed), which must be inside the scores.
  template <class P>
  __device__ __forceinline__ float bias(const P &p, int q, int k,
                                        int head) const {
    return ElementIO<typename C::BiasElement>::load(
        p.bias, b * p.bias_strides[0] + head * p.bias_strides[1] +
                    q * p.bias_strides[2] + k * p.bias_strides[3]);
  }
  template <class P>
  __device__ __forceinline__ float bias(const P &p, int q, int k) const {
    return bias(p, q, k, h);
  }

  /// The keep mask at (q, k) of query head `head` (as for bias), which must
  /// be inside the scores.
  template <class P>
  __device__ __forceinline__ bool kept(const P &p, int q, int k,
                                       int head) const {
    return p.keep[b * p.keep_strides[0] + head * p.keep_strides[1] +
                  q * p.keep_strides[2] + k * p.keep_strides[3]] != 0;
  }
  template <class P>
  __device__ __forceinline__ bool kept(const P &p, int q, int k) const {
    return kept(p, q, k, h);
  }

  /// Turns the raw q.k scores of keys [n0, n0 + 8 kNTiles) into base-2
  /// logits, or leaves that to the softmax: returns the factor that still
  /// turns s into logits (OnlineSoftmax::update's logitScale). s holds m16n8
  /// accumulators: m-tile mt of the rows from rowBase (relative to m0); each
  /// thread holds two rows of each (lane / 4 and lane / 4 + 8). Without
  /// kElementwise (a full tile with no per-element operand) s is left raw
  /// and scale_log2 returned, unless the scale is not positive (the row
  /// maxima of raw scores would then be minima).
  template <bool kElementwise, int kMTiles, int kNTiles, class P>
  __device__ __forceinline__ float apply(const P &p, int n0,
                                         int rowBase,
                                         float (&s)[kMTiles][kNTiles][4]) const {
    if (!kElementwise) {
      if (p.scale_log2 > 0.f)
        return p.scale_log2;
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[mt][j][e] *= p.scale_log2;
      return 1.f;
    }
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const PackedRow<C> row(m0 + rowBase + mt * 16 + lane / 4 + half * 8,
                               h);
        const int q = row.q, head = row.head;
        int lo, hi;
        rowRange(p, q, lo, hi);
        const bool rowInside = q < seqQ(p);
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
#pragma unroll
          for (int e = 2 * half; e < 2 * half + 2; ++e) {
            const int k = n0 + j * 8 + (lane % 4) * 2 + (e % 2);
            const bool inside = rowInside && k < seqKV(p);
            float x = s[mt][j][e] * p.scale;
            if (C::kScoreMod)
              x = C::scoreMod(x, b, head, q, k, p.score_mod_captures);
            if (C::kBias && inside)
              x += bias(p, q, k, head);
            bool ok = k >= lo && k < hi;
            if (C::kKeep)
              ok = ok && inside && kept(p, q, k, head);
            s[mt][j][e] = ok ? x * kLog2e : negInf();
          }
      }
    return 1.f;
  }
};

} // namespace attn
