//===- Inputs.h - The inputs attn-run runs a function on --------*- C++ -*-===//

#ifndef ATTN_RUN_INPUTS_H
#define ATTN_RUN_INPUTS_H

#include "attn/Run/Tensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <random>
#include <string>
#include <vector>

namespace attn::run {

/// Seeded values for argument `arg` of `func`: normal floats rounded to
/// their type, booleans true with probability 0.8, integers in [1, Skv]
/// where Skv is the key length of the scores the argument is used with
/// (lengths of keys).
HostTensor randomInput(mlir::BlockArgument arg, std::mt19937_64 &rng,
                       mlir::func::FuncOp func);

/// One host tensor per argument of `func`: read from `npyFiles` (one per
/// argument, values rounded to the argument's type, shapes checked) or,
/// without files, drawn from `rng`. Every argument must be a static tensor
/// of a type attn-run holds.
Result<std::vector<HostTensor>> makeInputs(mlir::func::FuncOp func,
                                           const std::vector<std::string> &npyFiles,
                                           std::mt19937_64 &rng);

} // namespace attn::run

#endif // ATTN_RUN_INPUTS_H
