//===- KernelGroup.cpp - What one op compiled to, and its dispatch -------===//

#include "attn/Runtime/KernelGroup.h"
#include "attn/Runtime/Log.h"

#include <atomic>
#include <mutex>

namespace attn {

/// The cp.async kernel of a persistent one, built at most once: a failed
/// build is reported again, not retried at every launch.
struct KernelGroup::CpAsyncFallback {
  std::string name;
  Kernel::DeferredBuild build;
  std::mutex mutex;
  bool attempted = false;
  Status failure;
  std::shared_ptr<Kernel> kernel;
  std::atomic<FlashKernel *> ready{nullptr};
};

KernelGroup::KernelGroup(std::shared_ptr<Kernel> primary)
    : primary_(std::move(primary)) {}

void KernelGroup::setLongKeysKernel(std::shared_ptr<Kernel> kernel,
                                    int64_t fromKeys) {
  longKeys_ = std::move(kernel);
  longKeysFrom_ = fromKeys;
}

void KernelGroup::setCpAsyncFallback(std::string name,
                                     Kernel::DeferredBuild build) {
  cpAsync_ = std::make_shared<CpAsyncFallback>();
  cpAsync_->name = std::move(name);
  cpAsync_->build = std::move(build);
}

FlashKernel *KernelGroup::forKeys(int64_t keys) const {
  Kernel *kernel = longKeys_ && keys > longKeysFrom_ ? longKeys_.get()
                                                     : primary_.get();
  return kernel->as<FlashKernel>();
}

FlashKernel *KernelGroup::longKeysKernel() const {
  return longKeys_ ? longKeys_->as<FlashKernel>() : nullptr;
}

FlashKernel *KernelGroup::cpAsyncFallback() const {
  return cpAsync_ ? cpAsync_->ready.load(std::memory_order_acquire) : nullptr;
}

Result<FlashKernel *> KernelGroup::cpAsyncFor(const FlashKernel &kernel,
                                              const std::string &why) {
  const std::string cannot =
      "kernel " + kernel.spec().name + " reads q, k and v by TMA, and " + why;
  if (!cpAsync_)
    return Status(StatusCode::InvalidArgument,
                  cannot + "; no cp.async kernel was compiled beside it "
                           "(attn::compileSource adds one where a "
                           "non-persistent variant serves the attention): "
                           "pass operands TMA can read");
  if (FlashKernel *ready = cpAsync_->ready.load(std::memory_order_acquire))
    return ready;
  std::lock_guard<std::mutex> lock(cpAsync_->mutex);
  if (!cpAsync_->attempted) {
    cpAsync_->attempted = true;
    Result<std::shared_ptr<Kernel>> built = cpAsync_->build();
    if (built && !(*built)->as<FlashKernel>())
      built = Status(StatusCode::InvalidArgument,
                     "it is not fused attention: " + (*built)->spec().name);
    if (built) {
      cpAsync_->kernel = *built;
      cpAsync_->ready.store((*built)->as<FlashKernel>(),
                            std::memory_order_release);
      // Said once, at the build: every later such launch runs it silently.
      if (logEnabled())
        log("remark: " + cannot + ": running the cp.async kernel " +
            (*built)->spec().name + " instead");
    } else {
      cpAsync_->failure = built.status();
    }
  }
  if (cpAsync_->kernel)
    return cpAsync_->kernel->as<FlashKernel>();
  return Status(
      cpAsync_->failure.code(),
      cannot + "; building the cp.async kernel " + cpAsync_->name +
          " that would run it instead failed: " + cpAsync_->failure.message());
}

Result<FlashKernel *> KernelGroup::tmaOrCpAsync(FlashKernel &kernel,
                                                Driver *driver,
                                                const FlashArgs &a,
                                                TmaMaps &maps,
                                                std::string &why) {
  FlashParams view = kernel.operandParams(a);
  kernel.packQueryHeads(view, a);
  why = kernel.tmaRejection(view);
  if (why.empty()) {
    Status encoded =
        driver ? kernel.encodeTmaMaps(*driver, view, maps) : Status::ok();
    if (encoded)
      return &kernel;
    why = encoded.message();
  }
  return cpAsyncFor(kernel, why);
}

Result<FlashKernel *> KernelGroup::kernelFor(const FlashArgs &a,
                                             Device device) {
  FlashKernel *kernel = forKeys(a.seqKV);
  if (!kernel)
    return primary_->wrongKind("FlashArgs");
  // An invalid launch stays with the kernel, whose checks report it.
  if (!kernel->persistent() || !kernel->validate(a))
    return kernel;
  TmaMaps maps;
  std::string why;
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return tmaOrCpAsync(*kernel, nullptr, a, maps, why);
  Result<ContextScope> scope = (*driver)->enter(device);
  if (!scope)
    return scope.status();
  return tmaOrCpAsync(*kernel, *driver, a, maps, why);
}

Status KernelGroup::load(Device device) {
  for (Kernel *kernel : {primary_.get(), longKeys_.get(),
                         static_cast<Kernel *>(cpAsyncFallback())})
    if (kernel)
      if (Status s = kernel->load(device); !s)
        return s;
  return Status::ok();
}

Status KernelGroup::validate(const FlashArgs &a) const {
  FlashKernel *kernel = forKeys(a.seqKV);
  return kernel ? kernel->validate(a) : primary_->wrongKind("FlashArgs");
}

Result<int> KernelGroup::splitsFor(const FlashArgs &a, Device device) {
  // The kernel that runs the launch decides with its own tiles.
  Result<FlashKernel *> kernel = kernelFor(a, device);
  if (!kernel)
    return kernel.status();
  return (*kernel)->splitsFor(a, device);
}

Result<size_t> KernelGroup::workspaceBytes(const FlashArgs &a, Stream stream,
                                           Device device) {
  Result<FlashKernel *> kernel = kernelFor(a, device);
  if (!kernel)
    return kernel.status();
  return (*kernel)->workspaceBytes(a, stream, device);
}

Status KernelGroup::launch(const FlashArgs &a, Stream stream, Device device) {
  FlashKernel *kernel = forKeys(a.seqKV);
  if (!kernel)
    return primary_->wrongKind("FlashArgs");
  if (Status s = kernel->validate(a); !s)
    return s;
  // The context stays current for the launch and is popped after it.
  Result<Driver::Entered> entered = Driver::enterForLaunch(device);
  if (!entered)
    return entered.status();
  Driver &driver = *entered->driver;
  void *context = entered->scope.context();
  // A persistent kernel reads q, k and v through tensor maps of the
  // launch's views; where TMA cannot, the cp.async kernel runs it.
  TmaMaps maps;
  const TmaMaps *tensorMaps = nullptr;
  if (kernel->persistent()) {
    std::string why;
    Result<FlashKernel *> reader =
        tmaOrCpAsync(*kernel, &driver, a, maps, why);
    if (!reader)
      return reader.status();
    if (*reader == kernel) {
      tensorMaps = &maps;
    } else {
      FlashKernel *cpAsync = *reader;
      if (Status s = cpAsync->validate(a); !s)
        return s;
      // Loaded here so that a failure (a capturing stream) says why the
      // launch needs that kernel.
      Result<FlashKernel::Loaded *> loaded = cpAsync->loadedIn(context, stream, true);
      if (!loaded)
        return Status(loaded.status().code(),
                      "kernel " + kernel->spec().name +
                          " hands this launch to its cp.async kernel " +
                          cpAsync->spec().name + " (" + why +
                          "): " + loaded.status().message());
      kernel = cpAsync;
    }
  }
  Result<FlashKernel::Loaded *> loaded = kernel->loadedIn(context, stream, true);
  if (!loaded)
    return loaded.status();
  FlashKernel::CombineLaunch combine;
  if (Status s = kernel->enqueueAttention(driver, **loaded, a, stream,
                                          tensorMaps, combine);
      !s || combine.blocks == 0)
    return s;
  return kernel->enqueueCombine(driver, **loaded, combine, stream);
}

Result<size_t> KernelGroup::workspaceBytes(const BackwardArgs &a) const {
  if (const auto *backward = primary_->as<BackwardKernel>())
    return backward->workspaceBytes(a);
  return primary_->wrongKind("BackwardArgs");
}

Status KernelGroup::validate(const BackwardArgs &a) const {
  if (const auto *backward = primary_->as<BackwardKernel>())
    return backward->validate(a);
  return primary_->wrongKind("BackwardArgs");
}

Status KernelGroup::launch(const BackwardArgs &a, Stream stream,
                           Device device) {
  if (auto *backward = primary_->as<BackwardKernel>())
    return backward->launch(a, stream, device);
  return primary_->wrongKind("BackwardArgs");
}

Status KernelGroup::validate(const GraphArgs &a) const {
  if (const auto *graph = primary_->as<GraphKernel>())
    return graph->validate(a);
  return primary_->wrongKind("GraphArgs");
}

Status KernelGroup::launch(const GraphArgs &a, Stream stream, Device device) {
  if (auto *graph = primary_->as<GraphKernel>())
    return graph->launch(a, stream, device);
  return primary_->wrongKind("GraphArgs");
}

} // namespace attn
