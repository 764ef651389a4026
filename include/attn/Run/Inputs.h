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
/// (lengths of keys; of an attn.flash, its keys per sequence); offsets of a
/// ragged batch (cu_seqlens of an attn.flash) from 0 to all packed tokens
/// at sorted random cut points, or one token per sequence where there are
/// as many tokens as sequences; a block table's pages as a random
/// permutation of the cache's pages, dealt row by row (repeating only when
/// the table holds more entries than the cache has pages).
HostTensor randomInput(mlir::BlockArgument arg, std::mt19937_64 &rng,
                       mlir::func::FuncOp func);

/// One host tensor per argument of `func`: read from `npyFiles` (one per
/// argument, values rounded to the argument's type, shapes checked) or,
/// without files, drawn from `rng`. Every argument must be a static tensor
/// of a type attn-run holds.
Result<std::vector<HostTensor>> makeInputs(mlir::func::FuncOp func,
                                           const std::vector<std::string> &npyFiles,
                                           std::mt19937_64 &rng);

/// Replaces the values of the arguments `specs` name, each
/// "INDEX:v0,v1,..." (attn-run --set-input): every value of argument INDEX,
/// row-major, rounded to its type, e.g. the offsets of a ragged batch or a
/// page table a test must control. An error names the spec at fault.
Status setInputValues(mlir::func::FuncOp func,
                      const std::vector<std::string> &specs,
                      std::vector<HostTensor> &inputs);

/// Sets to NaN every element of k and v (arguments of the function's
/// attn.flash ops) that no sequence reads: keys past a sequence's length
/// (`lengths` with key_padding), rows of a ragged batch outside every
/// sequence, and the slots of a paged cache past its sequences' lengths or
/// in pages no table entry names (entries clamped to the cache, as the
/// kernels read them). An uninitialized cache holds such values: a kernel
/// that lets one into its output (0 * NaN) fails --check, whose reference
/// never uses them (attn-run --poison-padding). Returns how many elements
/// were set; an error names an operand that is not a function argument, an
/// argument something other than attn.flash / attn.flash_bwd reads, or a
/// function without attn.flash.
Result<int64_t> poisonUnreadKeys(mlir::func::FuncOp func,
                                 std::vector<HostTensor> &inputs);

} // namespace attn::run

#endif // ATTN_RUN_INPUTS_H
