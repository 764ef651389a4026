// The mask policy of the attention kernels: which key tiles a work tile must
// visit (and, for the backward's K/V-stationary kernel, which queries a key
// tile must visit), which of them need element-wise masking, and the
// element-wise step that turns raw q.k scores into base-2 logits (scale,
// score_mod, bias, the positional masks, keep). The backward
// (flash_bwd.cuh) applies the same rules to its scores.
//
// The configuration C supplies kCausal, kBottomRight, kWindow, kKeyPadding,
// kKeep, kBias, kScoreMod, BiasElement and scoreMod(). The launch's
// parameters P are FlashParams, or FlashBwdParams for the backward: both
// have the fields read here (seq_q, seq_kv, lengths, window_left,
// window_right, keep, bias and their strides, score_mod_captures).
#pragma once
#include "attn/common.cuh"

namespace attn {

template <class C> struct Mask {
  /// Work tile (batch, query head) and its query rows [m0, qLast].
  int b, h, m0, qLast;
  /// Keys at or past kvEnd are padding (key_padding lengths, or seq_kv).
  int kvEnd;
  /// The diagonal of query q is key q + diagOffset (bottom-right: Skv - Sq).
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
    qLast = min(m0 + blockM, p.seq_q) - 1;
    kvEnd = p.seq_kv;
    if (C::kKeyPadding)
      kvEnd = min(p.seq_kv, max(p.lengths[b], 0));
    diagOffset = C::kBottomRight ? p.seq_kv - p.seq_q : 0;
  }

  /// The key tiles [begin, end) of blockN keys that this tile's split must
  /// visit: those any of its rows can see, cut into `splits` equal shares
  /// (a share may be empty; its split then writes an empty row).
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
        nBegin = max(0, m0 + diagOffset - p.window_left);
    }
    begin = nBegin / blockN;
    end = nEnd > nBegin ? (nEnd + blockN - 1) / blockN : begin;
    if (splits > 1) {
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
    end = p.seq_q;
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
      full = full && n0 + blockN - 1 <= m0 + diagOffset;
    if (C::kWindow) {
      if (p.window_right >= 0)
        full = full && n0 + blockN - 1 <= m0 + diagOffset + p.window_right;
      if (p.window_left >= 0)
        full = full && n0 >= qLast + diagOffset - p.window_left;
    }
    return full;
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

  /// The additive bias of (q, k), which must be inside the scores.
  template <class P>
  __device__ __forceinline__ float bias(const P &p, int q, int k) const {
    return ElementIO<typename C::BiasElement>::load(
        p.bias, b * p.bias_strides[0] + h * p.bias_strides[1] +
                    q * p.bias_strides[2] + k * p.bias_strides[3]);
  }

  /// The keep mask at (q, k), which must be inside the scores.
  template <class P>
  __device__ __forceinline__ bool kept(const P &p, int q, int k) const {
    return p.keep[b * p.keep_strides[0] + h * p.keep_strides[1] +
                  q * p.keep_strides[2] + k * p.keep_strides[3]] != 0;
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
        const int q = m0 + rowBase + mt * 16 + lane / 4 + half * 8;
        int lo, hi;
        rowRange(p, q, lo, hi);
        const bool rowInside = q < p.seq_q;
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
#pragma unroll
          for (int e = 2 * half; e < 2 * half + 2; ++e) {
            const int k = n0 + j * 8 + (lane % 4) * 2 + (e % 2);
            const bool inside = rowInside && k < p.seq_kv;
            float x = s[mt][j][e] * p.scale;
            if (C::kScoreMod)
              x = C::scoreMod(x, b, h, q, k, p.score_mod_captures);
            if (C::kBias && inside)
              x += bias(p, q, k);
            bool ok = k >= lo && k < hi;
            if (C::kKeep)
              ok = ok && inside && kept(p, q, k);
            s[mt][j][e] = ok ? x * kLog2e : negInf();
          }
      }
    return 1.f;
  }
};

} // namespace attn
