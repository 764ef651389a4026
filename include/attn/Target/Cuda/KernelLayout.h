//===- KernelLayout.h - Resource model of the flash kernels -----*- C++ -*-===//
//
// The shared-memory layout and register estimate of the kernel variants in
// kernels-templates/attn/ (sm80: mma.sync; sm90: wgmma), in one place for the
// cost model and the emitter (which static_asserts the template agrees).
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_TARGET_CUDA_KERNELLAYOUT_H
#define ATTN_TARGET_CUDA_KERNELLAYOUT_H

#include <cstdint>
#include <string_view>

namespace mlir::attn {

/// Largest head dimension any kernel supports.
constexpr int64_t kMaxHeadDim = 256;

/// The tile configuration and operand shape a resource model needs.
struct TileShape {
  std::string_view variant; ///< "sm80" or "sm90"
  int64_t blockM, blockN, numWarps, stages;
  int64_t headDimQK, headDimV;
  bool transposeK;
};

/// A head dimension rounded up to the mma k-step (16).
constexpr int64_t paddedHeadDim(int64_t headDim) {
  return (headDim + 15) / 16 * 16;
}

/// sm80 row stride in elements of a [rows][headDim] shared tile: the padded
/// head dimension plus one 16-byte chunk, so that 8 rows read by ldmatrix
/// fall in 8 different bank groups.
constexpr int64_t sharedRowStride(int64_t headDim) {
  return paddedHeadDim(headDim) + 8;
}

/// True if the sm90 (wgmma) variant supports the operands: its 128-byte
/// swizzled tiles hold head dims in whole 64-column blocks, and K must be
/// K-major.
constexpr bool sm90Supports(int64_t headDimQK, int64_t headDimV,
                            bool transposeK) {
  return !transposeK && headDimQK % 64 == 0 && headDimV % 64 == 0;
}

/// Dynamic shared memory of one block, in bytes (2-byte elements): the Q tile
/// and `stages` K and V tiles. sm80: padded rows, a transposed K tile is
/// [headDim][blockN]; sm90: dense swizzled tiles plus 1024 bytes to align
/// them.
constexpr int64_t sharedMemoryBytes(const TileShape &t) {
  if (t.variant == "sm90")
    return 2 * (t.blockM * t.headDimQK +
                t.stages * t.blockN * (t.headDimQK + t.headDimV)) +
           1024;
  int64_t q = t.blockM * sharedRowStride(t.headDimQK);
  int64_t k = t.transposeK ? paddedHeadDim(t.headDimQK) * (t.blockN + 8)
                           : t.blockN * sharedRowStride(t.headDimQK);
  int64_t v = t.blockN * sharedRowStride(t.headDimV);
  return 2 * (q + t.stages * (k + v));
}

/// Estimated registers per thread. sm80: the O and S accumulators of each
/// warp's 16-row m-tiles, plus addressing and softmax state, plus the index
/// and operand arithmetic of element-wise work on every tile (bias, keep or
/// score_mod), which ptxas showed to cost about 16 registers for one m-tile
/// and 64 more for each further one. sm90: a warpgroup's 64 x blockN S, its
/// packed P and its 64 x headDimV O, spread over 128 threads.
constexpr int64_t estimatedRegisters(const TileShape &t, bool elementwise) {
  if (t.variant == "sm90")
    return t.blockN / 2 + t.blockN / 4 + t.headDimV / 2 + 40 +
           (elementwise ? 16 : 0);
  int64_t mTiles = t.blockM / (16 * t.numWarps);
  return mTiles * 4 * (paddedHeadDim(t.headDimV) / 8 + t.blockN / 8) + 64 +
         (elementwise ? 16 + 64 * (mTiles - 1) : 0);
}

} // namespace mlir::attn

#endif // ATTN_TARGET_CUDA_KERNELLAYOUT_H
