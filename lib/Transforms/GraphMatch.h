//===- GraphMatch.h - Matchers of attention graph ops -----------*- C++ -*-===//
//
// Shapes of graph ops that more than one pass recognizes: fusion folds
// scalings into attn.flash's scale, the unfused lowering runs them as
// attn.scale kernels.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_TRANSFORMS_GRAPHMATCH_H
#define ATTN_LIB_TRANSFORMS_GRAPHMATCH_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::attn {

/// The constant value of a splat float tensor constant, if `value` is one.
std::optional<double> splatConstant(Value value);

/// A scaling of a tensor by a constant: attn.scale, or arith.mulf / divf by a
/// splat constant as exporters write `scores * scale` and `scores / sqrt(d)`.
/// Returns the factor and sets `input` to the scaled operand.
std::optional<double> matchScaling(Operation *op, Value &input);

} // namespace mlir::attn

#endif // ATTN_LIB_TRANSFORMS_GRAPHMATCH_H
