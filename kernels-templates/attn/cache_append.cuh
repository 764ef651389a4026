// Appending a decode step's keys and values to a KV cache, the pre-kernel
// of attn.with_kvcache(k=, v=): each block copies one token's head of k
// and v to the cache row at its sequence's length (through the block table
// of a paged cache), rotating k (and, in blocks of query heads, q) by the
// rotary angle of that position. Rows past a sequence's capacity are not
// written (the host refuses a step that it can tell overflows).
#pragma once

#include "attn/common.cuh"
#include "attn/params_cache.h"

namespace attn {

/// C: Element, kHeadDimK, kHeadDimV, kRotaryDim (0: none; even, at most
/// kHeadDimK), kInterleaved (rotate pairs 2d, 2d + 1; else d, d + R / 2),
/// kPaged.
template <class C> struct CacheAppend {
  using IO = ElementIO<typename C::Element>;

  /// Row `x` (kDim elements) to `y`, the first kRotaryDim rotated by the
  /// angles of `position`.
  template <int kDim, bool kRotate>
  static __device__ __forceinline__ void copyRow(const CacheAppendParams &p,
                                                 const void *x, i64 xRow,
                                                 void *y, i64 yRow,
                                                 int position) {
    constexpr int kHalf = C::kRotaryDim / 2;
    for (int d = threadIdx.x; d < kDim; d += kCacheAppendThreads) {
      float value = IO::load(x, xRow + d);
      if (kRotate && d < C::kRotaryDim) {
        // d's partner in its rotated pair, and the pair's angle.
        const int pair = C::kInterleaved ? d / 2 : d % kHalf;
        const bool first = C::kInterleaved ? d % 2 == 0 : d < kHalf;
        const int partner = C::kInterleaved ? (first ? d + 1 : d - 1)
                                            : (first ? d + kHalf : d - kHalf);
        const float other = IO::load(x, xRow + partner);
        const i64 angle = static_cast<i64>(position) * kHalf + pair;
        const float c = p.cos[angle], s = p.sin[angle];
        value = first ? value * c - other * s : other * s + value * c;
      }
      IO::store(y, yRow + d, value);
    }
  }

  static __device__ void run(const CacheAppendParams &p) {
    const int t = blockIdx.x, slot = blockIdx.y, b = blockIdx.z;
    const int cached = p.cache_seqlens[b];
    if (t == 0 && slot == 0 && threadIdx.x == 0)
      p.seqlens_out[b] = cached + p.new_tokens;
    // Positions past the rotary table take its last row (the host checks
    // that the table covers the cache).
    auto rotaryRow = [&](int position) {
      return min(max(position, 0), p.rotary_positions - 1);
    };
    if (slot < p.heads_q) {
      if (C::kRotaryDim == 0 || t >= p.seq_q)
        return;
      const int position = p.q_at_each_position ? cached + t : cached;
      copyRow<C::kHeadDimK, true>(
          p, p.q, b * p.q_strides[0] + t * p.q_strides[1] + slot * p.q_strides[2],
          p.q_out,
          b * p.q_out_strides[0] + t * p.q_out_strides[1] +
              slot * p.q_out_strides[2],
          rotaryRow(position));
      return;
    }
    const int h = slot - p.heads_q;
    const int position = cached + t;
    if (t >= p.new_tokens || position < 0 || position >= p.capacity)
      return;
    i64 row = position, first = b;
    if (C::kPaged) {
      const int page = p.block_table[b * p.block_table_stride + position / p.page_size];
      first = min(max(page, 0), p.num_pages - 1);
      row = position % p.page_size;
    }
    copyRow<C::kHeadDimK, (C::kRotaryDim > 0)>(
        p, p.k_new,
        b * p.k_new_strides[0] + t * p.k_new_strides[1] + h * p.k_new_strides[2],
        p.k_cache,
        first * p.k_cache_strides[0] + row * p.k_cache_strides[1] +
            h * p.k_cache_strides[2],
        rotaryRow(position));
    copyRow<C::kHeadDimV, false>(
        p, p.v_new,
        b * p.v_new_strides[0] + t * p.v_new_strides[1] + h * p.v_new_strides[2],
        p.v_cache,
        first * p.v_cache_strides[0] + row * p.v_cache_strides[1] +
            h * p.v_cache_strides[2],
        0);
  }
};

} // namespace attn
