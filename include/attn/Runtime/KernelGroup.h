//===- KernelGroup.h - What one op compiled to, and its dispatch -*- C++ -*-===//
//
// A Kernel is one compiled module launched as it is. An attn.flash may have
// planned more than one (its #attn.launch_plan): tiles for long keys, past a
// key length, and beside a persistent (TMA) kernel the cp.async kernel that
// runs launches whose operands TMA cannot read. The group holds them and is
// the one place that picks, per launch, which of them runs; it then enqueues
// that kernel and, where the launch splits the keys, its combine.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_KERNELGROUP_H
#define ATTN_RUNTIME_KERNELGROUP_H

#include "attn/Runtime/Kernel.h"

#include <memory>
#include <string>

namespace attn {

/// The kernels of one attn.flash, attn.flash_bwd or attn.kernel. The
/// backward, graph-op and cache-append kinds have one kernel, which the
/// group launches as is; fused attention may have three (see the file
/// comment).
class KernelGroup {
public:
  explicit KernelGroup(std::shared_ptr<Kernel> primary);

  /// The kernel the op compiled to first: what runs unless a launch's key
  /// length or strides pick another.
  Kernel &primary() const { return *primary_; }
  std::shared_ptr<Kernel> primaryShared() const { return primary_; }
  const KernelSpec &spec() const { return primary_->spec(); }
  /// The primary kernel as fused attention, or null for another kind.
  FlashKernel *flash() const { return primary_->as<FlashKernel>(); }

  /// Launches with more than `fromKeys` keys (their splits, workspace and
  /// loading too) run `kernel`: the same attention with tiles for long
  /// keys, compiled beside the primary where the key length is dynamic (the
  /// long_keys of an #attn.launch_plan).
  void setLongKeysKernel(std::shared_ptr<Kernel> kernel, int64_t fromKeys);
  /// That kernel, or null.
  FlashKernel *longKeysKernel() const;
  /// The key length past which launches run it.
  int64_t longKeysFrom() const { return longKeysFrom_; }

  /// Launches of a persistent (TMA) kernel of this group whose q, k or v
  /// TMA cannot read (cuTensorMapEncodeTiled needs 16-byte aligned
  /// addresses and strides that are non-negative multiples of 16 bytes
  /// below 2^40; a view the driver refuses counts too) run the same
  /// attention on the cp.async kernel `name` instead: `build` compiles it
  /// at the first such launch (or workspaceBytes, splitsFor), once, and the
  /// log says why, once. Without one, such a launch is an error that names
  /// the operand and the stride.
  void setCpAsyncFallback(std::string name, Kernel::DeferredBuild build);
  /// That kernel once built, else null.
  FlashKernel *cpAsyncFallback() const;

  /// The kernel that runs a launch with `args`: by the key length, then,
  /// for a persistent kernel, by whether TMA reads the operands (the
  /// documented rules, and in `device` the driver's encoding); building
  /// the cp.async kernel if that is its first need. An invalid launch
  /// stays with the kernel that reports it.
  /// A group of another kind has no kernel for FlashArgs: an error.
  Result<FlashKernel *> kernelFor(const FlashArgs &args, Device device = {});

  /// Loads every kernel of the group into `device`'s context: the primary,
  /// the long-keys kernel, and the cp.async kernel if a launch has built it
  /// (load does not build it: launch once with such strides before
  /// capturing a CUDA graph).
  Status load(Device device = {});

  /// The forward (KernelKind::Flash), through kernelFor: checks, splits,
  /// workspace, and the launch, which enqueues the chosen kernel and, where
  /// the keys are split, its combine (the rules of every launch, in
  /// Context.h: no compile, allocation or synchronization; nothing loaded
  /// while the stream captures a CUDA graph).
  Status validate(const FlashArgs &args) const;
  Result<int> splitsFor(const FlashArgs &args, Device device = {});
  Result<size_t> workspaceBytes(const FlashArgs &args, Stream stream = nullptr,
                                Device device = {});
  Status launch(const FlashArgs &args, Stream stream = nullptr,
                Device device = {});

  /// The other kinds: their one kernel's (BackwardKernel, GraphKernel);
  /// an error that names the arguments the kernel takes if it is of
  /// another kind.
  Result<size_t> workspaceBytes(const BackwardArgs &args) const;
  Status validate(const BackwardArgs &args) const;
  Status launch(const BackwardArgs &args, Stream stream = nullptr,
                Device device = {});
  Status validate(const GraphArgs &args) const;
  Status launch(const GraphArgs &args, Stream stream = nullptr,
                Device device = {});

private:
  /// The forward kernel of `keys` keys: the primary or the long-keys
  /// kernel; null if the group is of another kind.
  FlashKernel *forKeys(int64_t keys) const;
  /// For a persistent `kernel`: itself, with `maps` encoded (by `driver`;
  /// without one, the documented rules decide alone), or where TMA cannot
  /// read the operands (`why`), the cp.async kernel.
  Result<FlashKernel *> tmaOrCpAsync(FlashKernel &kernel, Driver *driver,
                                const FlashArgs &args, TmaMaps &maps,
                                std::string &why);
  /// The cp.async kernel, built on first need; `why` TMA cannot serve
  /// `kernel`.
  Result<FlashKernel *> cpAsyncFor(const FlashKernel &kernel,
                                   const std::string &why);

  std::shared_ptr<Kernel> primary_;
  std::shared_ptr<Kernel> longKeys_;
  int64_t longKeysFrom_ = 0;
  struct CpAsyncFallback;
  std::shared_ptr<CpAsyncFallback> cpAsync_;
};

} // namespace attn

#endif // ATTN_RUNTIME_KERNELGROUP_H
