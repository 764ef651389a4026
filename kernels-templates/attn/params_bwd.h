// The arguments of attn's backward kernels: plain C++ shared by the device
// templates (flash_bwd.cuh) and the host runtime.
#pragma once

#include "attn/params.h"

namespace attn {

/// Threads of the backward's preprocessing and conversion kernels.
constexpr int kBackwardRowThreads = 128;
/// Rows of D = rowsum(dO * O) a warp of the preprocessing kernel takes:
/// its lanes in groups of headDimV / 8 (16 bytes each, rounded up to a
/// power of two), a row per group, so that each warp has as many bytes in
/// flight as 32 lanes load (the kernel is memory-bound); one row where
/// 16-byte loads do not divide the head dim.
constexpr int backwardPreRowsPerWarp(int headDimV) {
  if (headDimV % 8 != 0 || headDimV / 8 > 16)
    return 1;
  int lanes = 1;
  while (lanes < headDimV / 8)
    lanes *= 2;
  return 32 / lanes;
}

/// The conversion kernel's share of the f32 dQ sum per warp where the sum
/// is tiled (a 16 x 32 block); row by row, a warp takes a row.
constexpr int kBackwardConvertFloatsPerWarp = 512;

/// Runtime arguments of the backward kernels. Strides are in elements (the
/// last dimension of every tensor is contiguous); keep and bias strides are
/// 0 along broadcast dimensions. The workspace buffers belong to the caller.
/// The mask policy (mask.cuh) reads the fields it shares with FlashParams.
/// Grids: the K/V-stationary kernel's (key blocks, heads_kv, batch), the dQ
/// kernel's (query blocks, heads_q, batch).
struct FlashBwdParams {
  const void *q, *k, *v, *o, *dout;
  const float *lse;           // [batch, heads_q, seq_q], natural log
  void *dq, *dk, *dv;         // element type; dk, dv with heads_kv heads
  const int *lengths;         // [batch] valid keys per batch, or null
  const unsigned char *keep;  // bool tensor, or null
  const void *bias;           // additive bias, or null
  // dbias: the bias's gradient, of extents dbias_shape (1 where the bias
  // broadcasts). Written in place where no dimension is summed
  // (dbias_accum null; the preprocessing zeroes it first), else summed in
  // f32 into dbias_accum (contiguous, zeroed by the preprocessing) and
  // converted at the end.
  void *dbias;
  float *dbias_accum;
  // Attention sinks ([heads_q] f32) and their gradient, written by the
  // _sinks kernel; null without sinks.
  const float *sinks;
  float *dsinks;
  float *delta;    // workspace: rowsum(dO * O), [batch * heads_q * seq_q]
  // Workspace: dQ / scale summed over the K/V blocks with atomics, f32, in
  // the K/V kernel's layout (DqAccum, flash_bwd.cuh: row by row, or tile
  // by tile with each head's rows padded to whole query tiles; the runtime
  // sizes it for the latter); null in the deterministic mode, where a
  // Q-stationary kernel computes dQ instead.
  float *dq_accum;
  i64 q_strides[3], k_strides[3], v_strides[3], o_strides[3], dout_strides[3];
  i64 dq_strides[3], dk_strides[3], dv_strides[3]; // batch, head, row
  i64 keep_strides[4];
  i64 bias_strides[4];
  i64 dbias_strides[4];       // of dbias; 0 along summed dimensions
  i64 dbias_accum_strides[4]; // of dbias_accum; 0 along summed dimensions
  int dbias_shape[4];
  int batch, heads_q, heads_kv, seq_q, seq_kv;
  int window_left, window_right; // -1: unbounded; at most seq_q + seq_kv
  float scale;                   // softmax scale
  // Ragged batches (kernels with kVarlen), as FlashParams has them: batch
  // sequences at the offsets, seq_q and seq_kv the packed rows, no batch
  // strides; lse, D and the dQ sum are [heads_q][seq_q] (one batch
  // entry). Null otherwise.
  const int *cu_seqlens_q, *cu_seqlens_k;
  // The tensors the score_mod reads (its captures, contiguous, in the op's
  // order); unused slots are null.
  const void *score_mod_captures[kMaxScoreModCaptures];
};

/// The tensor maps of the warp-specialized backward kernel
/// (sm90/flash_bwd_ws.cuh), its second __grid_constant__ parameter: q, k,
/// v and dout as 4-d tensors (head dim, sequence, head, batch) with boxes
/// of 64 columns (128 bytes, the swizzle span) by a query tile's rows (q,
/// dout) or a key block's (k, v).
struct BackwardTmaMaps {
  TensorMap q, k, v, dout;
};

} // namespace attn
