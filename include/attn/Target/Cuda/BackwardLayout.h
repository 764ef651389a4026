//===- BackwardLayout.h - Resource model of the backward kernels -*- C++ -*-===//
//
// Shared memory and a register estimate of the sm80 backward kernels of
// kernels-templates/attn/sm80/flash_bwd.cuh, in one place for the cost model
// (--attn-select-config) and the emitter (which static_asserts the template
// agrees). The K/V-stationary kernel ("dkdv") gives each warp 16 keys of the
// block's K/V tile; the warps that share them split the query tile and the
// head dims of dK and dV. The deterministic dQ kernel gives each warp 16
// query rows.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_TARGET_CUDA_BACKWARDLAYOUT_H
#define ATTN_TARGET_CUDA_BACKWARDLAYOUT_H

#include "attn/Target/Cuda/KernelLayout.h"

#include <algorithm>
#include <cstdint>

namespace mlir::attn {

/// The tile configuration (a #attn.backward_config) and operand shape.
struct BackwardTile {
  int64_t blockM, blockN, numWarps, stages;
  int64_t headDimQK, headDimV;

  /// Warps that share one warp's 16 keys.
  constexpr int64_t warpsPerKeyTile() const { return numWarps / (blockN / 16); }
  /// The dQ product of the dkdv kernel: warps along the query rows (each a
  /// whole number of m16 tiles) and along the head dim.
  constexpr int64_t dqWarpsM() const { return std::min(numWarps, blockM / 16); }
  constexpr int64_t dqWarpsD() const { return numWarps / dqWarpsM(); }
  /// Keys per tile of the deterministic dQ kernel: blockN, but 16 for head
  /// dims over 128, where ptxas keeps the dQ accumulator and the operands
  /// of several key steps in flight (242 registers at head dim 256 with 32
  /// keys, 165 with 16).
  constexpr int64_t dqBlockN() const {
    return paddedHeadDim(headDimQK) > 128 ? 16 : blockN;
  }
};

/// True if the head dims split evenly, in whole n8 tiles, over the warps
/// that share them (dK and dV in the dkdv kernel, dQ there too).
constexpr bool backwardSplitsHeadDims(const BackwardTile &t) {
  int64_t qk = paddedHeadDim(t.headDimQK), v = paddedHeadDim(t.headDimV);
  return qk % (8 * t.warpsPerKeyTile()) == 0 &&
         v % (8 * t.warpsPerKeyTile()) == 0 && qk % (8 * t.dqWarpsD()) == 0;
}

/// Row stride (elements) of the [keys][queries] tiles of P and dS.
constexpr int64_t backwardScoreStride(const BackwardTile &t) {
  return t.blockM + 8;
}

/// Dynamic shared memory of the dkdv kernel, bytes: K and V of the block,
/// `stages` Q and dO tiles with their logsumexp and D rows (f32), dS and,
/// when warps split the queries, P.
constexpr int64_t backwardSharedBytes(const BackwardTile &t) {
  int64_t qk = sharedRowStride(t.headDimQK), v = sharedRowStride(t.headDimV);
  int64_t scores =
      t.blockN * backwardScoreStride(t) * (t.warpsPerKeyTile() > 1 ? 2 : 1);
  return 2 * (t.blockN * (qk + v) + t.stages * t.blockM * (qk + v) + scores) +
         8 * t.stages * t.blockM;
}

/// Dynamic shared memory of the deterministic dQ kernel, bytes: Q and dO of
/// the block, `stages` K and V tiles.
constexpr int64_t backwardDqSharedBytes(const BackwardTile &t) {
  int64_t qk = sharedRowStride(t.headDimQK), v = sharedRowStride(t.headDimV);
  return 2 * (t.blockM * (qk + v) + t.stages * t.dqBlockN() * (qk + v));
}

/// Estimated registers per thread of the dkdv kernel: the dK and dV
/// accumulators and the larger of S with dP (16 keys by the warp's queries)
/// and a chunk of the dQ product, with a quarter more for the operand
/// fragments ptxas keeps in flight, plus addressing; element-wise work
/// (bias, keep, score_mod) adds index arithmetic. Fitted to ptxas (sm_80,
/// CUDA 13): 161-189 registers at head dims 32-64 with one warp per 16
/// keys, 246 at 80, 124-174 with two or four.
constexpr int64_t backwardRegisters(const BackwardTile &t, bool elementwise) {
  int64_t qk = paddedHeadDim(t.headDimQK), v = paddedHeadDim(t.headDimV);
  int64_t accumulators = (qk + v) / (2 * t.warpsPerKeyTile());
  int64_t scores = t.blockM / t.warpsPerKeyTile();
  // dQ in chunks of at most 64 columns per warp.
  int64_t dq = (t.blockM / 16 / t.dqWarpsM()) *
               std::min<int64_t>(qk / t.dqWarpsD(), 64) / 2;
  return (accumulators + std::max(scores, dq)) * 5 / 4 + 40 +
         (elementwise ? 16 : 0);
}

/// Estimated registers per thread of the deterministic dQ kernel: its dQ
/// accumulator and the S and dP of 16 rows by dqBlockN keys, plus
/// addressing and the element-wise work (ptxas: 163-174 at head dims 64-128
/// with 64 keys, 226 at 256 with 16 keys and a score_mod).
constexpr int64_t backwardDqRegisters(const BackwardTile &t, bool elementwise) {
  return paddedHeadDim(t.headDimQK) / 2 + t.dqBlockN() + 48 +
         (elementwise ? 32 : 0);
}

} // namespace mlir::attn

#endif // ATTN_TARGET_CUDA_BACKWARDLAYOUT_H
