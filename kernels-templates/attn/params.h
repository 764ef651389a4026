// The arguments of attn's kernels: plain C++ shared by the device templates
// and the host runtime, so both sides agree on the layout.
#pragma once

#include "attn/tile_scheduler.h"

namespace attn {

using i64 = long long;

/// Threads of a split-KV combine block; a warp merges one row.
constexpr int kCombineThreads = 128;

/// Tensors one score_mod may read (FlashParams::score_mod_captures).
constexpr int kMaxScoreModCaptures = 4;

/// Runtime arguments of a forward attention kernel. Strides are in elements;
/// the last dimension of q, k (of k's rows when k is transposed), v and o is
/// contiguous. keep and bias strides are 0 along broadcast dimensions.
struct FlashParams {
  const void *q, *k, *v;
  void *o;
  float *lse;               // [batch, heads_q, seq_q], or null
  const int *lengths;       // [batch] valid keys per batch, or null
  const unsigned char *keep; // bool tensor, or null
  const void *bias;         // additive bias, or null
  unsigned long long *tile_stats; // [2] += key tiles computed, of them
                                  // masked element-wise; or null
  // The work tiles and their order (tile_scheduler.h). Split-KV:
  // schedule.splits tiles share a query block's key tiles, each writing its
  // normalized partial output and logsumexp, f32, at
  // [split][batch][head][row] (rows of heads_q x seq_q as launched);
  // FlashCombine merges them into o (and lse). One split: o directly.
  TileSchedule schedule;
  // Persistent kernels: the next work tile of a block is
  // atomicAdd(tile_counter, 1) + gridDim.x (zeroed before each launch, in
  // the caller's workspace); null: every gridDim.x-th tile.
  int *tile_counter;
  float *partial_o;   // [splits][batch * heads_q * seq_q][kHeadDimV]
  float *partial_lse; // [splits][batch * heads_q * seq_q]
  i64 q_strides[3];         // batch, head, row
  i64 k_strides[3];         // batch, head, row (row = key, or head dim if transposed)
  i64 v_strides[3];
  i64 o_strides[3];
  i64 keep_strides[4];      // batch, head, query, key
  i64 bias_strides[4];
  int batch, heads_q, heads_kv, seq_q, seq_kv;
  int window_left, window_right; // -1: unbounded; at most seq_q + seq_kv
  float scale;              // softmax scale
  float scale_log2;         // scale * log2(e)
  // The tensors a score_mod reads (its captures, contiguous, in the op's
  // order); unused slots are null.
  const void *score_mod_captures[kMaxScoreModCaptures];
  // Ragged batches (kernels with kVarlen): sequence b's queries are the
  // rows cu_seqlens_q[b] .. cu_seqlens_q[b + 1] of q and o (seq_q: all
  // packed rows; q and o have no batch stride), its keys likewise of k and
  // v (seq_kv); offsets are clamped to [0, seq_q] and [0, seq_kv], so no
  // table makes a kernel read or write outside them. Null otherwise.
  const int *cu_seqlens_q, *cu_seqlens_k;
  // Attention sinks (kernels with kSinks): one f32 logit per query head;
  // the query head of launch head h, row r is
  // h * sink_strides[0] + r * sink_strides[1] (rows of packed query heads
  // are heads). Null otherwise.
  const float *sinks;
  int sink_strides[2];
  // Paged K/V caches (kernels with kPaged): k and v hold num_pages pages
  // of page_size keys (k_strides/v_strides: page, head, row); sequence b's
  // key n is row n % page_size of page
  // block_table[b * table_stride + n / page_size], clamped to the pages, so
  // no table reads outside the caches. seq_kv is the pages per sequence
  // times page_size; lengths says how many keys are valid. Null otherwise.
  const int *block_table;
  i64 table_stride;
  int num_pages, page_size;
  // Batch-invariant splits: when > 0, split s visits the key tiles
  // [s * split_tiles, (s + 1) * split_tiles) of its sequence (fixed key
  // positions, whatever the launch's split count); 0: equal shares.
  int split_tiles;
};

/// A TMA descriptor (CUDA's CUtensorMap: 128 opaque bytes, 64-byte
/// aligned), encoded on the host by cuTensorMapEncodeTiled.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

/// The tensor maps of a persistent (TMA) forward kernel, its second
/// __grid_constant__ parameter: q, k and v as 4-d tensors (head dim,
/// sequence, head, batch) with boxes of 64 columns (128 bytes, the swizzle
/// span) by a tile's rows; o likewise with boxes of 64 rows (one consumer
/// warpgroup's), for the kernels that stage their output in shared memory
/// and store it by TMA. stages_output: nonzero if o was encoded (strides TMA
/// rejects leave each thread storing its own accumulators).
struct TmaMaps {
  TensorMap q, k, v, o;
  int stages_output;
};

/// The shared memory one block may opt in to on sm_90 (227 KB).
constexpr int kMaxSharedSm90 = 232448;

/// Runtime arguments of a graph-op kernel (the unfused path, one attn.kernel
/// per launch). Shapes are compile-time constants of the kernel; operands
/// are viewed at rank 4 (leading dimensions of size 1 added), with element
/// strides, 0 along broadcast dimensions.
struct GraphParams {
  static constexpr int kMaxInputs = 4;
  const void *in[kMaxInputs];
  void *out; // may be in[0] (in place)
  i64 in_strides[kMaxInputs][4];
  i64 out_strides[4];
};

} // namespace attn
