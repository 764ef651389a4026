//===- KernelLayout.h - Resource model of the sm80 flash kernel -*- C++ -*-===//
//
// The shared-memory layout and register estimate of
// kernels-templates/attn/sm80/flash_fwd.cuh, in one place for the cost model,
// the emitter (which static_asserts the template agrees) and the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_TARGET_CUDA_KERNELLAYOUT_H
#define ATTN_TARGET_CUDA_KERNELLAYOUT_H

#include <cstdint>

namespace mlir::attn {

/// Largest head dimension any kernel supports.
constexpr int64_t kMaxHeadDim = 256;

/// A head dimension rounded up to the mma k-step (16).
constexpr int64_t paddedHeadDim(int64_t headDim) {
  return (headDim + 15) / 16 * 16;
}

/// Row stride in elements of a [rows][headDim] shared tile: the padded head
/// dimension plus one 16-byte chunk, so that 8 rows read by ldmatrix fall in
/// 8 different bank groups.
constexpr int64_t sharedRowStride(int64_t headDim) {
  return paddedHeadDim(headDim) + 8;
}

/// Dynamic shared memory of one block, in bytes (2-byte elements): the Q tile
/// and `stages` K and V tiles. A transposed K tile is [headDim][blockN].
constexpr int64_t sharedMemoryBytes(int64_t blockM, int64_t blockN,
                                    int64_t stages, int64_t headDimQK,
                                    int64_t headDimV, bool transposeK) {
  int64_t q = blockM * sharedRowStride(headDimQK);
  int64_t k = transposeK ? paddedHeadDim(headDimQK) * (blockN + 8)
                         : blockN * sharedRowStride(headDimQK);
  int64_t v = blockN * sharedRowStride(headDimV);
  return 2 * (q + stages * (k + v));
}

/// Estimated registers per thread: the O and S accumulators of each warp's
/// 16-row m-tiles, plus addressing and softmax state, plus the index and
/// operand arithmetic of element-wise work on every tile (bias, keep or
/// score_mod), which ptxas showed to cost about 16 registers for one m-tile
/// and 64 more for each further one.
constexpr int64_t estimatedRegisters(int64_t blockM, int64_t blockN,
                                     int64_t numWarps, int64_t headDimV,
                                     bool elementwise) {
  int64_t mTiles = blockM / (16 * numWarps);
  return mTiles * 4 * (paddedHeadDim(headDimV) / 8 + blockN / 8) + 64 +
         (elementwise ? 16 + 64 * (mTiles - 1) : 0);
}

} // namespace mlir::attn

#endif // ATTN_TARGET_CUDA_KERNELLAYOUT_H
