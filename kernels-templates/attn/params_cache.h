// The arguments of the KV-cache append kernel (cache_append.cuh): plain
// C++ shared by the device template and the host runtime.
#pragma once

#include "attn/params.h"

namespace attn {

/// Threads of a cache-append block: one (token, head) row of a tensor.
constexpr int kCacheAppendThreads = 128;

/// A decode step's new keys and values written into a dense or paged cache
/// at each sequence's length, with rotary embeddings optionally applied to
/// them and to the queries. Strides are in elements, the last dimension
/// contiguous. Grid: (rows, heads_q + heads_kv, batch) with rows the larger
/// of new_tokens and seq_q; a block writes one token's head.
struct CacheAppendParams {
  const void *k_new, *v_new; // [batch, new_tokens, heads_kv, dim]
  // Dense: [batch, capacity, heads_kv, dim]; paged: [num_pages, page_size,
  // heads_kv, dim], sequence b's keys in pages block_table[b, 0], ...
  void *k_cache, *v_cache;
  const int *cache_seqlens; // [batch] keys before the append
  int *seqlens_out;         // [batch] written: cache_seqlens + new_tokens
  const int *block_table;   // [batch, pages per sequence], or null (dense)
  // Rotary (kRotaryDim > 0): cos, sin [rotary_positions, kRotaryDim / 2]
  // f32; q [batch, seq_q, heads_q, dim] is read and q_out written rotated.
  const float *cos, *sin;
  const void *q;
  void *q_out;
  i64 k_new_strides[3], v_new_strides[3]; // batch, token, head
  i64 k_cache_strides[3], v_cache_strides[3]; // batch or page, row, head
  i64 q_strides[3], q_out_strides[3];
  i64 block_table_stride;
  int batch, new_tokens, seq_q, heads_q, heads_kv;
  int capacity;  // keys a sequence's cache holds (pages per sequence x page_size)
  int page_size, num_pages;
  int rotary_positions;
  // Queries at cache_seqlens + t (causal or windowed attention), or all at
  // cache_seqlens (flash_attn_with_kvcache's rule).
  int q_at_each_position;
};

} // namespace attn
