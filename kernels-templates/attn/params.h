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
};

/// A TMA descriptor (CUDA's CUtensorMap: 128 opaque bytes, 64-byte
/// aligned), encoded on the host by cuTensorMapEncodeTiled.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

/// The tensor maps of a persistent (TMA) forward kernel, its second
/// __grid_constant__ parameter: q, k and v as 4-d tensors (head dim,
/// sequence, head, batch) with boxes of 64 columns (128 bytes, the swizzle
/// span) by a tile's rows.
struct TmaMaps {
  TensorMap q, k, v;
};

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
