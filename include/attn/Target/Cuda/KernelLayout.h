//===- KernelLayout.h - Resource model of the flash kernels -----*- C++ -*-===//
//
// The resource model of a configured attn.flash, for the cost model and the
// emitter: a thin view of the table of kernel variants
// (attn/Runtime/KernelVariants.h), which holds each variant's rules.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_TARGET_CUDA_KERNELLAYOUT_H
#define ATTN_TARGET_CUDA_KERNELLAYOUT_H

#include "attn/Runtime/KernelVariants.h"

#include <cstdint>
#include <limits>
#include <string_view>

namespace mlir::attn {

using ::attn::kMaxHeadDim;

/// The tile configuration and operand shape a resource model needs.
struct TileShape {
  std::string_view variant; ///< a name of the table of kernel variants
  int64_t blockM, blockN, numWarps, stages;
  int64_t headDimQK, headDimV;
  bool transposeK;
};

inline ::attn::TileConfig tileConfigOf(const TileShape &t) {
  return {t.blockM, t.blockN, t.numWarps, t.stages};
}
inline ::attn::OperandShape operandShapeOf(const TileShape &t,
                                           bool elementwise = false) {
  // Without more detail, assume element-wise work loads mask operands.
  return {t.headDimQK, t.headDimV, t.transposeK, elementwise, elementwise};
}

/// Dynamic shared memory of one block, in bytes; an unknown variant needs
/// more than any GPU has.
inline int64_t sharedMemoryBytes(const TileShape &t) {
  const ::attn::KernelVariant *v = ::attn::findKernelVariant(t.variant);
  return v ? v->sharedBytes(tileConfigOf(t), operandShapeOf(t))
           : std::numeric_limits<int32_t>::max();
}

/// Estimated registers per thread (of the threads holding accumulators).
inline int64_t estimatedRegisters(const TileShape &t, bool elementwise) {
  const ::attn::KernelVariant *v = ::attn::findKernelVariant(t.variant);
  return v ? v->registers(tileConfigOf(t), operandShapeOf(t, elementwise))
           : std::numeric_limits<int32_t>::max();
}

/// Registers such a thread may use.
inline int64_t registerLimit(const TileShape &t) {
  const ::attn::KernelVariant *v = ::attn::findKernelVariant(t.variant);
  return v ? v->registerLimit(tileConfigOf(t)) : 0;
}

/// Static query lengths up to this pack the query heads of a K/V head into
/// a block's rows with the tokens (decode, speculative decoding).
constexpr int64_t kMaxPackedTokens = 16;

/// Query heads per K/V head whose rows share a block in a kernel of
/// `variant` (its rows are then (token, head) pairs: the emitter's
/// kPackGroup), or 1: decode of a few static tokens with GQA/MQA. The TMA
/// kernel loads a block's rows as one box of (head, token) pairs, so its
/// groups must divide the 64 rows of a consumer warpgroup.
inline int64_t packedRowGroup(const ::attn::KernelVariant &variant,
                              int64_t headsQ, int64_t headsKV, int64_t seqQ,
                              bool varlen) {
  if (varlen || headsKV < 1 || headsQ <= headsKV || seqQ < 1 ||
      seqQ > kMaxPackedTokens)
    return 1;
  const int64_t group = headsQ / headsKV;
  if (variant.persistent && 64 % group != 0)
    return 1;
  return group;
}

} // namespace mlir::attn

#endif // ATTN_TARGET_CUDA_KERNELLAYOUT_H
