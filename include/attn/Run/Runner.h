//===- Runner.h - Running a compiled function on the GPU --------*- C++ -*-===//
//
// Walks the function op by op: attn.flash, attn.flash_bwd and attn.kernel
// ops launch their compiled kernels on device tensors (a training step's
// forward writes o and the logsumexp its backward reads), casts between
// fused kernels alias,
// constants (hoisted out of score_mod regions) are in the kernels already.
// Each launch is kept, ready to enqueue again for timing.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUN_RUNNER_H
#define ATTN_RUN_RUNNER_H

#include "attn/Run/Tensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn::run {

/// One kernel of the function, ready to enqueue again (for --bench).
struct Launch {
  std::shared_ptr<KernelGroup> kernel;
  std::function<Status()> enqueue;
  std::optional<FlashArgs> flashArgs; ///< for fused attention
  /// Split-KV partials, or the backward's sums (owned by the launch).
  std::shared_ptr<DeviceBuffer> workspace;
  Kernel::Grid grid;
  double flops = 0, bytes = 0;
  /// Key tiles of every query block, none skipped (0: the grid's blocks
  /// times the keys' tiles, as in a dense batch).
  unsigned long long keyTiles = 0;
  /// A fused launch's outputs.
  std::optional<DeviceTensor> output, lse;
};

struct RunOptions {
  /// q, k, v and the outputs of fused kernels in BSHD memory (strided).
  bool bshd = false;
  /// FlashArgs::splits of every fused launch.
  int splits = 0;
  /// FlashArgs::batchInvariant of every fused launch.
  bool batchInvariant = false;
  /// BackwardArgs::deterministic of every backward launch.
  bool deterministic = false;
};

/// The function on the device: its values and the launches that made them.
struct Execution {
  llvm::DenseMap<mlir::Value, DeviceTensor> values;
  std::vector<Launch> launches;
  mlir::func::ReturnOp ret;
};

/// The kernel of `launch`'s group that runs it (KernelGroup::kernelFor of
/// a fused launch's arguments; the group's one kernel otherwise).
Result<Kernel *> kernelOf(const Launch &launch);

/// Why `func` cannot run after the pipeline (an op that is neither a kernel
/// nor a cast or constant), or nothing.
std::optional<std::string> whyNotRunnable(mlir::func::FuncOp func);

/// Uploads `inputs` and enqueues every kernel of `func` (`kernels` in op
/// order, as compileModule returns them); needs a GPU. Does not wait.
Result<Execution> runFunction(mlir::func::FuncOp func,
                              const std::vector<std::shared_ptr<KernelGroup>> &kernels,
                              const std::vector<HostTensor> &inputs,
                              const RunOptions &options);

/// Waits for the device; a kernel's failure is reported here.
Status synchronize();

/// Runs every fused launch of `execution` again with 3 more splits, into
/// new outputs, and compares them bytewise with the first run's (a
/// batch-invariant launch's results must not depend on its split count).
/// The number of launches compared, or an error naming the first output
/// that differs. Needs a GPU.
Result<int> checkSplitInvariance(const Execution &execution);

/// The function's results, copied to the host.
Result<std::vector<HostTensor>> downloadResults(const Execution &execution);

} // namespace attn::run

#endif // ATTN_RUN_RUNNER_H
