//===- Profile.h - Timing and what a kernel achieved ------------*- C++ -*-===//

#ifndef ATTN_RUN_PROFILE_H
#define ATTN_RUN_PROFILE_H

#include "attn/Run/Runner.h"

#include <functional>
#include <string>

namespace attn::run {

/// The NVRTC version ("13.0"), or "missing".
std::string nvrtcVersion();

/// Shared memory per block: dynamic (fused kernels) plus static (ptxas).
int sharedBytes(const Kernel &kernel);

/// Fraction of the (query, key) pairs the positional masks of `spec` keep.
double maskDensity(const KernelSpec &spec, int64_t seqQ, int64_t seqKV);

/// Datasheet dense 16-bit tensor-core rate of a device, TFLOP/s.
double peakTflops(const DeviceInfo &device);

/// Median time of `body` in ms over `iters` runs timed with CUDA events,
/// after `warmup` untimed ones.
Result<double> medianMs(const std::function<Status()> &body, unsigned warmup,
                        unsigned iters);

/// What one launch achieved in `ms`.
struct LaunchRate {
  double tflops = 0, gbs = 0, percentOfPeak = 0;
};
LaunchRate launchRate(const Launch &launch, double ms,
                      const DeviceInfo &device);

/// Key tiles of a fused kernel, counted by running it once more.
struct TileStats {
  unsigned long long computed = 0, masked = 0, all = 0;
  int splits = 1;
  bool packedHeads = false;
};
Result<TileStats> tileStats(const Launch &launch);

} // namespace attn::run

#endif // ATTN_RUN_PROFILE_H
