//===- Driver.h - The CUDA driver, loaded at first use ----------*- C++ -*-===//
//
// libcuda is opened with dlopen, so that tools which only compile run on
// machines with no GPU and no driver; asking for the device there gives a
// NoDevice status, never a crash. ATTN_FORCE_NO_GPU=1 makes a machine with a
// GPU behave the same (compile-only).
//
// Work runs in the CUDA context a Device names: by default the calling
// thread's current one (what the CUDA runtime's cudaSetDevice and PyTorch
// make current), else the primary context of $ATTN_DEVICE (0 if unset). A
// context that is not current is pushed for the call and popped after it:
// the caller's current context is never left changed.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_DRIVER_H
#define ATTN_RUNTIME_DRIVER_H

#include "attn/Runtime/Status.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace attn {

/// A GPU's properties.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int major = 0, minor = 0;
  int multiprocessors = 0;
  int maxSharedPerBlockOptin = 0;
  int maxSharedPerMultiprocessor = 0;
  int maxRegistersPerMultiprocessor = 0;
  int maxThreadsPerMultiprocessor = 0;
  int l2Bytes = 0;
  size_t memoryBytes = 0;
  int clockKHz = 0, memoryClockKHz = 0, memoryBusWidth = 0;
  int driverVersion = 0;

  /// "sm_90a" for compute capability 9.0 (wgmma needs the a-variant), else
  /// "sm_XY".
  std::string arch() const;
  /// Peak DRAM bandwidth from the memory clock and bus width, in GB/s.
  double peakBandwidthGBs() const;
};

using DevicePtr = uint64_t;
using Stream = void *;

/// The CUDA context work runs in.
struct Device {
  /// A context of the caller's (a CUcontext); wins over `ordinal`.
  void *context = nullptr;
  /// >= 0: the primary context of this device (the CUDA runtime's and
  /// PyTorch's); -1: the calling thread's current context, or where it has
  /// none, the primary context of $ATTN_DEVICE (0 if unset).
  int ordinal = -1;

  static Device current() { return Device(); }
  static Device primary(int ordinal) {
    Device d;
    d.ordinal = ordinal;
    return d;
  }
  static Device ofContext(void *context) {
    Device d;
    d.context = context;
    return d;
  }
};

/// What the driver knows of a pointer.
struct PointerInfo {
  enum class Kind { Unknown, Host, Device, Managed };
  Kind kind = Kind::Unknown; ///< Unknown: not CUDA memory (a host pointer)
  int ordinal = -1;          ///< the device of device memory
  bool checked = true;       ///< false where the driver could not say
};

class Driver;

/// The context of a Device made current while this lives. Entering pushes
/// it only when another context (or none) is current; leaving pops it.
class ContextScope {
public:
  ContextScope(ContextScope &&other) noexcept;
  ContextScope &operator=(ContextScope &&) = delete;
  ~ContextScope();
  /// The CUcontext.
  void *context() const { return context_; }
  /// True if entering changed the thread's current context.
  bool pushed() const { return pushed_; }

private:
  friend class Driver;
  ContextScope(const Driver *driver, void *context, bool pushed)
      : driver_(driver), context_(context), pushed_(pushed) {}
  const Driver *driver_;
  void *context_;
  bool pushed_;
};

/// Thin wrappers over the driver calls attn uses; each returns a Status that
/// names the call and the driver's error string.
class Driver {
public:
  /// Loads the driver and counts the GPUs, once. No context is created or
  /// made current here.
  static Result<Driver *> get();

  /// The device tools use when none is named: $ATTN_DEVICE, or 0.
  const DeviceInfo &device() const { return *defaultDevice_; }
  int deviceCount() const { return deviceCount_; }
  /// Properties of the GPU `ordinal` (read once).
  Result<const DeviceInfo *> deviceInfo(int ordinal);

  /// Makes `device`'s context current for the scope (see Device).
  Result<ContextScope> enter(Device device);

  /// What every launch starts with: the driver, loaded once, and `device`'s
  /// context current until `scope` ends.
  struct Entered {
    Driver *driver;
    ContextScope scope;
  };
  static Result<Entered> enterForLaunch(Device device);
  /// The device of the current context.
  Result<int> currentOrdinal() const;
  /// True if `stream` is capturing a CUDA graph: loading modules,
  /// allocating and synchronizing are then not allowed.
  Result<bool> isCapturing(Stream stream) const;
  /// Where `pointer` lives.
  PointerInfo pointerInfo(const void *pointer) const;

  // In the current context (that of a ContextScope).
  /// Encodes a TMA descriptor (cuTensorMapEncodeTiled) of a 16-bit tensor
  /// into the 128 bytes at `map` (64-byte aligned): `rank` dimensions,
  /// innermost first, the byte strides of dimensions 1.., and the box one
  /// copy moves; shared memory gets the 128-byte swizzle, elements outside
  /// the tensor read as zeros. Host-only: needs no context.
  Status encodeTensorMap(void *map, bool bf16, const void *address, int rank,
                         const uint64_t *dims, const uint64_t *strideBytes,
                         const uint32_t *box);

  Result<void *> loadModule(const std::string &cubin);
  Status unloadModule(void *module);
  Result<void *> getFunction(void *module, const std::string &name);
  Status setDynamicShared(void *function, int bytes);
  Result<int> functionAttribute(void *function, int attribute);
  Result<int> occupancy(void *function, int threads, int dynamicShared);
  Status launch(void *function, unsigned gridX, unsigned gridY, unsigned gridZ,
                unsigned block, unsigned sharedBytes, Stream stream,
                void **args);
  /// Sets `count` 32-bit words at dst to value, in stream order (a memset
  /// node under graph capture).
  Status fillWordsAsync(DevicePtr dst, unsigned value, size_t count,
                        Stream stream);

  // For tools and tests: in Device::current() (the thread's current
  // context, or $ATTN_DEVICE's primary one).
  Result<DevicePtr> allocate(size_t bytes);
  Status free(DevicePtr ptr);
  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes);
  Status copyToHost(void *dst, DevicePtr src, size_t bytes);
  Status fill(DevicePtr dst, unsigned char value, size_t bytes);
  Status synchronize();

  Result<void *> createEvent();
  Status destroyEvent(void *event);
  Status recordEvent(void *event, Stream stream);
  Result<float> elapsedMs(void *start, void *stop);

  /// The entry points, as lib/Runtime/DriverApi.h declares them.
  struct Api;
  /// Tests: from now on get() returns a driver over `api` (a fake one that
  /// needs no GPU); null returns to the real driver.
  static Status overrideForTesting(const Api *api);

private:
  friend class ContextScope;
  Driver() = default;
  static Result<std::unique_ptr<Driver>> create(const Api *api);
  Status check(int result, const char *call) const;
  Result<void *> primaryContext(int ordinal);

  const Api *api_ = nullptr;
  int deviceCount_ = 0;
  const DeviceInfo *defaultDevice_ = nullptr;
  std::mutex mutex_; ///< guards filling the two tables below
  std::unique_ptr<std::atomic<void *>[]> primaryContexts_;
  std::vector<std::unique_ptr<DeviceInfo>> devices_;
};

/// A device buffer freed when it goes out of scope (in Device::current()).
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  static Result<DeviceBuffer> allocate(size_t bytes);
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();
  DevicePtr get() const { return ptr_; }
  size_t size() const { return bytes_; }

private:
  DevicePtr ptr_ = 0;
  size_t bytes_ = 0;
};

} // namespace attn

#endif // ATTN_RUNTIME_DRIVER_H
