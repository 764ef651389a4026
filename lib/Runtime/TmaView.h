//===- TmaView.h - Operands as the TMA kernels read them --------*- C++ -*-===//
//
// Private to AttnRuntime: a tensor as a tensor map describes it, why TMA
// cannot read it, and its encoding, shared by the persistent forward
// (Context.cpp) and the warp-specialized backward (Backward.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_RUNTIME_TMAVIEW_H
#define ATTN_LIB_RUNTIME_TMAVIEW_H

#include "attn/Runtime/Context.h"
#include "attn/Runtime/Driver.h"
#include "attn/params.h"

#include <string>

namespace attn::detail {

/// One operand: its extents from the innermost (the head dim) out, the
/// element strides of all but the first, the box a load moves, and the
/// strides' names for messages.
struct TmaView {
  static constexpr int kMaxRank = 5;
  const char *name;
  const void *data;
  int rank;
  uint64_t dims[kMaxRank];
  i64 strides[kMaxRank - 1];
  uint32_t box[kMaxRank];
  const char *strideNames[kMaxRank - 1];
};

/// A [batch, heads, rows, headDim] tensor with element strides (batch,
/// head, row), read in boxes of 64 columns (the 128-byte swizzle span) by
/// `boxRows` rows of one head.
TmaView tmaRowsView(const char *name, const void *data, int headDim, int rows,
                    int heads, int batch, const i64 strides[3], int boxRows);

/// Why TMA cannot read `view` (an address or a stride it rejects), or "".
std::string tmaRejection(const TmaView &view);

/// Encodes `view` (f16 or bf16 elements, 128-byte swizzle) into `target`;
/// the error names the operand.
Status encodeTmaView(Driver &driver, bool bf16, const TmaView &view,
                     TensorMap *target);

} // namespace attn::detail

#endif // ATTN_LIB_RUNTIME_TMAVIEW_H
