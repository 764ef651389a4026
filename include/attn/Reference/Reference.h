//===- Reference.h - float64 CPU reference of attn graphs -------*- C++ -*-===//
//
// Evaluates a func.func of attn ops (graph ops and attn.flash) in double
// precision, as the ground truth that kernels are checked against. Attention
// is independent per (batch, head), so rank-4 results are computed only for
// the slices asked for: checking a large problem costs what its sample costs.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_REFERENCE_REFERENCE_H
#define ATTN_REFERENCE_REFERENCE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace mlir::attn::reference {

/// A dense row-major host tensor holding values as double (integers and
/// booleans too). Slices that were not computed hold NaN.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<double> data;

  HostTensor() = default;
  explicit HostTensor(std::vector<int64_t> shape, double fill = 0.0);
  int64_t numElements() const;
};

struct Options {
  /// (batch, head) pairs of rank-4 and logsumexp results to compute (of a
  /// ragged batch's attn.flash: (sequence, head)); empty means all.
  std::vector<std::pair<int64_t, int64_t>> slices;
  /// Worker threads (0: hardware concurrency).
  unsigned threads = 0;
  /// attn.flash_bwd reads its `o` rounded to o's element type, as the
  /// kernels do that read the forward's stored output: its D =
  /// rowsum(dO * o) is then theirs. On a row that sees one key, or few with
  /// one dominant, dP - D is mostly that rounding, which the exact o (off:
  /// the gradient of the float64 forward) would count as a kernel's error.
  bool roundStoredOutput = false;
};

/// Evaluates `func` on `inputs` (one per argument, shapes matching the
/// static argument types). Unsupported ops are reported on the op.
FailureOr<std::vector<HostTensor>> evaluate(func::FuncOp func,
                                            ArrayRef<HostTensor> inputs,
                                            const Options &options = {});

/// ||a - b|| / ||b|| over the entries where b is not NaN; NaN in `a` where b
/// is a number counts as an infinite error, and so does an infinity of b
/// that `a` does not equal. `compared` receives the count of entries
/// checked (equal infinities among them).
double relativeError(const HostTensor &a, const HostTensor &b,
                     int64_t *compared = nullptr);

} // namespace mlir::attn::reference

#endif // ATTN_REFERENCE_REFERENCE_H
