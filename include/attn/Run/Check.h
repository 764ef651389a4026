//===- Check.h - Outputs against the float64 reference ----------*- C++ -*-===//

#ifndef ATTN_RUN_CHECK_H
#define ATTN_RUN_CHECK_H

#include "attn/Run/Tensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <random>
#include <vector>

namespace attn::run {

/// The (batch, head) slices the reference computes: all of them when there
/// are at most `maxSlices` (or `maxSlices` is 0), else the first, the last
/// and seeded random ones, `maxSlices` in all.
std::vector<std::pair<int64_t, int64_t>>
sampleSlices(int64_t batch, int64_t heads, unsigned maxSlices,
             std::mt19937_64 &rng);

/// One output against its reference.
struct OutputCheck {
  std::vector<int64_t> shape;
  double error = 0;      ///< relative L2 error over the compared values
  int64_t compared = 0;  ///< values the sample covers
  int64_t unwritten = 0; ///< of those, NaN in the output (never written)
  /// All written, error <= tolerance, and something compared (unless the
  /// output has no elements): a sample the reference computed nothing of
  /// checks nothing.
  bool pass = false;
};

/// Compares `got` with `expected` (NaN where the reference computed
/// nothing).
OutputCheck checkOutput(const HostTensor &got, const HostTensor &expected,
                        double tolerance);

struct CheckResult {
  std::vector<OutputCheck> outputs;
  /// The slices compared (0: all of them).
  size_t sampledSlices = 0;
  double referenceMs = 0;
};

/// Evaluates `originalFunc` on `inputs` for a sample of the (batch, head)
/// slices of its first result (sampleSlices) and checks each of `outputs`
/// against it. A ragged batch's sample draws from the sequences that hold
/// queries, when its cu_seqlens_q is an argument (`inputs` gives it).
Result<CheckResult> checkAgainstReference(mlir::func::FuncOp originalFunc,
                                          const std::vector<HostTensor> &inputs,
                                          const std::vector<HostTensor> &outputs,
                                          unsigned maxSlices,
                                          std::mt19937_64 &rng,
                                          double tolerance);

/// The IR after the pipeline against the graph it came from, both through
/// the reference (no GPU): `loweredFunc`'s results against
/// `originalFunc`'s, on the same sample of slices. Fusion reorders exact
/// arithmetic and folds scales into one f32 factor, so the two agree to
/// f32 rounding.
Result<CheckResult> checkLoweringAgainstReference(
    mlir::func::FuncOp originalFunc, mlir::func::FuncOp loweredFunc,
    const std::vector<HostTensor> &inputs, unsigned maxSlices,
    std::mt19937_64 &rng, double tolerance);

} // namespace attn::run

#endif // ATTN_RUN_CHECK_H
