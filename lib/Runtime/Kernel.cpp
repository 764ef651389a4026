//===- Kernel.cpp - A compiled module, loaded per CUDA context ------------===//

#include "attn/Runtime/Kernel.h"
#include "attn/Runtime/Log.h"
#include "TensorChecks.h"

#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace attn {

Kernel::~Kernel() {
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return;
  for (const std::unique_ptr<Loaded> &loaded : loaded_) {
    Result<ContextScope> scope =
        (*driver)->enter(Device::ofContext(loaded->context));
    if (scope)
      (void)(*driver)->unloadModule(loaded->module);
  }
}

Status Kernel::wrongKind(const char *wanted) const {
  return Status(StatusCode::InvalidArgument,
                "kernel " + spec_.name + " is not launched with " + wanted +
                    "; launch it with " + launchArgsName(spec_.kind));
}

Status Kernel::loadEntries(Driver &, Loaded &) { return Status::ok(); }

Result<Kernel::Loaded *> Kernel::loadedIn(void *context, Stream stream,
                                          bool checkCapture) {
  // The common case, without a lock: the context of the last launch.
  Loaded *last = lastLoaded_.load(std::memory_order_acquire);
  if (last && last->context == context)
    return last;
  std::lock_guard<std::mutex> lock(loadMutex_);
  for (const std::unique_ptr<Loaded> &loaded : loaded_)
    if (loaded->context == context) {
      lastLoaded_.store(loaded.get(), std::memory_order_release);
      return loaded.get();
    }
  Driver *driver = *Driver::get();
  Result<int> ordinal = driver->currentOrdinal();
  if (!ordinal)
    return ordinal.status();
  if (checkCapture) {
    Result<bool> capturing = driver->isCapturing(stream);
    if (!capturing)
      return capturing.status();
    if (*capturing)
      return Status(StatusCode::InvalidArgument,
                    "kernel " + spec_.name + " is not loaded on device " +
                        std::to_string(*ordinal) +
                        " and its stream is capturing a CUDA graph, where "
                        "loading a module is not allowed; load it before "
                        "capturing (KernelGroup::load, attn_kernel_load, "
                        "attn.precompile) or run it once");
  }
  Result<const DeviceInfo *> device = driver->deviceInfo(*ordinal);
  if (!device)
    return device.status();
  const DeviceInfo &info = **device;
  if (info.arch() != arch_)
    return Status(StatusCode::InvalidArgument,
                  "kernel " + spec_.name + " was compiled for " + arch_ +
                      " but the GPU (" + info.name + ", device " +
                      std::to_string(*ordinal) + ") is " + info.arch());
  if (spec_.sharedBytes > info.maxSharedPerBlockOptin)
    return Status(StatusCode::Unsupported,
                  "kernel " + spec_.name + " needs " +
                      std::to_string(spec_.sharedBytes) +
                      " bytes of shared memory; " + info.name + " allows " +
                      std::to_string(info.maxSharedPerBlockOptin));
  auto loaded = std::make_unique<Loaded>();
  loaded->context = context;
  loaded->ordinal = *ordinal;
  loaded->device = &info;
  Result<void *> module = driver->loadModule(entry_->cubin);
  if (!module)
    return module.status();
  loaded->module = *module;
  auto fail = [&](Status s) -> Result<Loaded *> {
    (void)driver->unloadModule(loaded->module);
    return s;
  };
  Result<void *> fn = driver->getFunction(*module, spec_.name);
  if (!fn)
    return fail(fn.status());
  loaded->function = *fn;
  if (Status s = driver->setDynamicShared(*fn, spec_.sharedBytes); !s)
    return fail(s);
  if (Status s = loadEntries(*driver, *loaded); !s)
    return fail(s);
  if (logEnabled())
    log("loaded " + spec_.name + " on device " + std::to_string(*ordinal) +
        " (" + info.name + ")");
  loaded_.push_back(std::move(loaded));
  lastLoaded_.store(loaded_.back().get(), std::memory_order_release);
  return loaded_.back().get();
}

Result<Kernel::InContext> Kernel::enterLoaded(Device device, Stream stream,
                                              bool checkCapture) {
  Result<Driver::Entered> entered = Driver::enterForLaunch(device);
  if (!entered)
    return entered.status();
  Result<Loaded *> loaded =
      loadedIn(entered->scope.context(), stream, checkCapture);
  if (!loaded)
    return loaded.status();
  return InContext{std::move(*entered), *loaded};
}

Status Kernel::load(Device device) {
  Result<InContext> in = enterLoaded(device, nullptr, /*checkCapture=*/false);
  return in ? Status::ok() : in.status();
}

Result<int> Kernel::occupancy(Device device) {
  Result<InContext> in = enterLoaded(device, nullptr, false);
  if (!in)
    return in.status();
  return in->driver().occupancy(in->loaded->function, spec_.threads,
                                spec_.sharedBytes);
}

Result<int> Kernel::loadedRegisters(Device device) {
  Result<InContext> in = enterLoaded(device, nullptr, false);
  if (!in)
    return in.status();
  return in->driver().functionAttribute(in->loaded->function,
                                        CU_FUNC_ATTRIBUTE_NUM_REGS);
}

Result<int> Kernel::registers() {
  if (ptxas().parsed)
    return ptxas().registers;
  return loadedRegisters();
}
namespace detail {

Status invalid(const std::string &message) {
  return Status(StatusCode::InvalidArgument, message);
}

Status checkTensor(const char *name, const TensorArg &t, int contiguousDim) {
  if (!t.data)
    return invalid(std::string("'") + name + "' is a null pointer");
  if (reinterpret_cast<uintptr_t>(t.data) % 16)
    return invalid(std::string("'") + name +
                   "' must be 16-byte aligned for vector loads");
  if (t.strides[contiguousDim] != 1)
    return invalid(std::string("'") + name + "' must be contiguous in dimension " +
                   std::to_string(contiguousDim) + " (stride " +
                   std::to_string(t.strides[contiguousDim]) + ")");
  for (int d = 0; d < 4; ++d)
    if (d != contiguousDim && t.strides[d] % 8)
      return invalid(std::string("'") + name + "' stride of dimension " +
                     std::to_string(d) + " is " + std::to_string(t.strides[d]) +
                     "; it must be a multiple of 8 elements");
  return Status::ok();
}

int clampWindowBound(int bound, int seqQ, int seqKV) {
  const int64_t widest = int64_t(seqQ) + seqKV;
  return bound > widest ? static_cast<int>(widest) : bound;
}

Status checkDevicePointer(const char *name, const void *pointer,
                          int ordinal) {
  if (!pointer)
    return Status::ok();
  PointerInfo info = (*Driver::get())->pointerInfo(pointer);
  if (!info.checked || info.kind == PointerInfo::Kind::Managed)
    return Status::ok();
  if (info.kind == PointerInfo::Kind::Unknown)
    return invalid(std::string("'") + name +
                   "' is not GPU memory (a host pointer?); every operand "
                   "must be on the launch's device, " +
                   std::to_string(ordinal));
  if (info.kind == PointerInfo::Kind::Host)
    return invalid(std::string("'") + name +
                   "' is pinned host memory; every operand must be on the "
                   "launch's device, " +
                   std::to_string(ordinal));
  if (info.ordinal != ordinal)
    return invalid(std::string("'") + name + "' is on device " +
                   std::to_string(info.ordinal) +
                   " but the launch runs on device " + std::to_string(ordinal));
  return Status::ok();
}

Status checkCaptures(const KernelSpec &spec,
                     const void *const (&captures)[kMaxScoreModCaptures]) {
  for (int i = 0; i < kMaxScoreModCaptures; ++i) {
    bool used = i < spec.scoreModCaptures;
    if (used && !captures[i])
      return invalid("the score_mod reads " +
                     std::to_string(spec.scoreModCaptures) +
                     " captured tensors but capture " + std::to_string(i) +
                     " is null");
    if (!used && captures[i])
      return invalid("capture " + std::to_string(i) +
                     " is set but the score_mod reads " +
                     std::to_string(spec.scoreModCaptures));
  }
  return Status::ok();
}

} // namespace detail

using detail::invalid;

Kernel::Grid GraphKernel::grid() const {
  return Grid{static_cast<unsigned>(spec_.grid[0]),
              static_cast<unsigned>(spec_.grid[1]),
              static_cast<unsigned>(spec_.grid[2])};
}

Status GraphKernel::validate(const GraphArgs &a) const {
  if (a.inputs.size() != spec_.inputShapes.size())
    return invalid("kernel " + spec_.name + " takes " +
                   std::to_string(spec_.inputShapes.size()) +
                   " inputs, the launch has " + std::to_string(a.inputs.size()));
  for (size_t i = 0; i < a.inputs.size(); ++i)
    if (!a.inputs[i].data)
      return invalid("input " + std::to_string(i) + " of " + spec_.name +
                     " is a null pointer");
  if (!a.output.data)
    return invalid("the output of " + spec_.name + " is a null pointer");
  return Status::ok();
}

Status GraphKernel::launch(const GraphArgs &a, Stream stream, Device device) {
  if (Status s = validate(a); !s)
    return s;
  Result<InContext> in = enterLoaded(device, stream, true);
  if (!in)
    return in.status();
  GraphParams p = {};
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    p.in[i] = a.inputs[i].data;
    for (int d = 0; d < 4; ++d) {
      // A size-1 dimension the result does not have broadcasts.
      bool broadcast = spec_.inputShapes[i][d] == 1 && spec_.outputShape[d] != 1;
      p.in_strides[i][d] = broadcast ? 0 : a.inputs[i].strides[d];
    }
  }
  p.out = const_cast<void *>(a.output.data);
  for (int d = 0; d < 4; ++d)
    p.out_strides[d] = a.output.strides[d];
  void *args[] = {&p};
  return in->driver().launch(in->loaded->function, spec_.grid[0],
                             spec_.grid[1], spec_.grid[2], spec_.threads,
                             spec_.sharedBytes, stream, args);
}
} // namespace attn
