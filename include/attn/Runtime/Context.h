//===- Context.h - The JIT: build and launch kernels ------------*- C++ -*-===//
//
// spec -> build (NVRTC, cached; no GPU needed) -> load (once per CUDA
// context) -> launch (needs a GPU). All heavy work happens in build and load;
// launch validates its arguments and enqueues: it never compiles, allocates
// or synchronizes, so it may be captured in a CUDA graph once the kernel is
// loaded (KernelGroup::load) and given its workspace
// (KernelGroup::workspaceBytes). A Kernel is one compiled module; the
// KernelGroup of an op (KernelGroup.h) picks which of its kernels runs.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_CONTEXT_H
#define ATTN_RUNTIME_CONTEXT_H

#include "attn/Runtime/Cache.h"
#include "attn/Runtime/Kernel.h"
#include "attn/Runtime/Status.h"

#include <memory>
#include <string>

namespace attn {

/// Owns the compile options, the caches and (lazily) the driver.
class Context {
public:
  struct Options {
    /// Target: "sm_80", "sm_90a", ...; empty: the GPU's, or sm_90a without one.
    std::string arch;
    /// Disk cache directory; empty: Cache::defaultDirectory().
    std::string cacheDirectory;
    bool diskCache = true;
  };

  static Result<std::unique_ptr<Context>> create(const Options &options);
  static Result<std::unique_ptr<Context>> create() { return create(Options()); }

  /// The cache-append kernel (kernels-templates/attn/cache_append.cuh) of
  /// `element` caches with head dims headDimK / headDimV, dense or paged,
  /// rotating the first rotaryDim dims of q and k (0: none; even, at most
  /// headDimK), in adjacent pairs if interleaved: its spec, to build().
  static Result<KernelSpec> cacheAppendSpec(ElementType element, int headDimK,
                                            int headDimV, int rotaryDim,
                                            bool interleaved, bool paged);

  /// Compiles `spec` for the context's arch (or finds it in a cache).
  Result<std::shared_ptr<Kernel>> build(const KernelSpec &spec);
  /// build(spec) when called, which may be after the context is gone (it
  /// holds the arch and the cache, not the context).
  Kernel::DeferredBuild deferBuild(KernelSpec spec) const;

  const std::string &arch() const { return arch_; }
  Cache &cache() { return *cache_; }
  /// The default GPU ($ATTN_DEVICE, or 0), or NoDevice.
  static Result<DeviceInfo> device();

private:
  Context() = default;
  static Result<std::shared_ptr<Kernel>>
  build(const std::string &arch, Cache &cache, const KernelSpec &spec);
  std::string arch_;
  std::shared_ptr<Cache> cache_;
};

/// A hash of every embedded template: part of each cache key, so editing a
/// template invalidates what was compiled from it.
const std::string &templatesDigest();

} // namespace attn

#endif // ATTN_RUNTIME_CONTEXT_H
