//===- Profile.cpp - Timing and what a kernel achieved --------------------===//

#include "attn/Run/Profile.h"
#include "attn/Runtime/Nvrtc.h"

#include <algorithm>

namespace attn::run {

std::string nvrtcVersion() {
  Result<Nvrtc *> nvrtc = Nvrtc::get();
  return nvrtc ? (*nvrtc)->version() : "missing";
}

int sharedBytes(const Kernel &kernel) {
  return kernel.spec().sharedBytes + kernel.ptxas().sharedBytes;
}

double maskDensity(const KernelSpec &spec, int64_t sq, int64_t skv) {
  if (!spec.causal && !spec.window)
    return 1.0;
  int64_t kept = 0, offset = spec.bottomRight ? skv - sq : 0;
  for (int64_t i = 0; i < sq; ++i) {
    int64_t lo = 0, hi = skv - 1, diag = i + offset;
    if (spec.causal)
      hi = std::min(hi, diag);
    if (spec.window && spec.windowRight >= 0)
      hi = std::min(hi, diag + spec.windowRight);
    if (spec.window && spec.windowLeft >= 0)
      lo = std::max<int64_t>(lo, diag - spec.windowLeft);
    kept += std::max<int64_t>(0, hi - lo + 1);
  }
  return double(kept) / double(sq * skv);
}

double peakTflops(const DeviceInfo &d) {
  double perSmPerClock =
      d.major >= 9 ? 4096 : d.major == 8 && d.minor == 0 ? 2048 : 1024;
  return perSmPerClock * d.multiprocessors * (d.clockKHz * 1e3) / 1e12;
}

Result<double> medianMs(const std::function<Status()> &body, unsigned warmup,
                        unsigned iters) {
  Result<Driver *> driverOr = Driver::get();
  if (!driverOr)
    return driverOr.status();
  Driver *driver = *driverOr;
  auto start = driver->createEvent(), stop = driver->createEvent();
  if (!start || !stop)
    return Status(StatusCode::DriverError, "cannot create CUDA events");
  struct Events {
    Driver *driver;
    void *start, *stop;
    ~Events() {
      (void)driver->destroyEvent(start);
      (void)driver->destroyEvent(stop);
    }
  } events{driver, *start, *stop};
  for (unsigned i = 0; i < warmup; ++i)
    if (Status s = body(); !s)
      return s;
  std::vector<float> times;
  for (unsigned i = 0; i < iters; ++i) {
    (void)driver->recordEvent(events.start, nullptr);
    if (Status s = body(); !s)
      return s;
    (void)driver->recordEvent(events.stop, nullptr);
    auto ms = driver->elapsedMs(events.start, events.stop);
    if (!ms)
      return ms.status();
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  return times.empty() ? 0.0 : double(times[times.size() / 2]);
}

LaunchRate launchRate(const Launch &l, double ms, const DeviceInfo &device) {
  LaunchRate r;
  r.tflops = l.flops / (ms * 1e-3) / 1e12;
  r.gbs = l.bytes / (ms * 1e-3) / 1e9;
  r.percentOfPeak = 100.0 * std::max(r.tflops / peakTflops(device),
                                     r.gbs / device.peakBandwidthGBs());
  return r;
}

Result<TileStats> tileStats(const Launch &l) {
  if (!l.flashArgs)
    return Status(StatusCode::InvalidArgument,
                  "tile counts are kept by fused kernels only");
  Result<Driver *> driverOr = Driver::get();
  if (!driverOr)
    return driverOr.status();
  Driver *driver = *driverOr;
  auto counters = DeviceBuffer::allocate(2 * sizeof(unsigned long long));
  if (!counters)
    return counters.status();
  if (Status s = driver->fill(counters->get(), 0, counters->size()); !s)
    return s;
  FlashArgs args = *l.flashArgs;
  args.tileStats = reinterpret_cast<unsigned long long *>(counters->get());
  if (Status s = l.kernel->launch(args); !s)
    return s;
  unsigned long long stats[2];
  if (Status s = driver->copyToHost(stats, counters->get(), sizeof(stats)); !s)
    return s;
  // The kernel of the group that ran: its tiles count the work.
  Result<FlashKernel *> ran = l.kernel->kernelFor(args);
  if (!ran)
    return ran.status();
  const KernelSpec &spec = (*ran)->spec();
  auto splits = (*ran)->splitsFor(args);
  if (!splits)
    return splits.status();
  TileStats t;
  t.computed = stats[0];
  t.masked = stats[1];
  t.all = l.keyTiles ? l.keyTiles
                     : (unsigned long long)l.grid.x * l.grid.y * l.grid.z *
                           ((args.seqKV + spec.blockN - 1) / spec.blockN);
  t.splits = *splits;
  t.packedHeads = (*ran)->packsQueryHeads(args.seqQ);
  return t;
}

} // namespace attn::run
