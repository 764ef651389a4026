//===- Driver.h - The CUDA driver, loaded at first use ----------*- C++ -*-===//
//
// libcuda is opened with dlopen, so that tools which only compile run on
// machines with no GPU and no driver; asking for the device there gives a
// NoDevice status, never a crash. ATTN_FORCE_NO_GPU=1 makes a machine with a
// GPU behave the same (compile-only).
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_DRIVER_H
#define ATTN_RUNTIME_DRIVER_H

#include "attn/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace attn {

/// The GPU in use (device 0 unless ATTN_DEVICE says otherwise).
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

/// Thin wrappers over the driver calls attn uses; each returns a Status that
/// names the call and the driver's error string.
class Driver {
public:
  /// Loads the driver and initializes device 0 (or $ATTN_DEVICE), once.
  static Result<Driver *> get();

  const DeviceInfo &device() const { return device_; }

  /// Encodes a TMA descriptor (cuTensorMapEncodeTiled) of a 16-bit tensor
  /// into the 128 bytes at `map` (64-byte aligned): `rank` dimensions,
  /// innermost first, the byte strides of dimensions 1.., and the box one
  /// copy moves; shared memory gets the 128-byte swizzle, elements outside
  /// the tensor read as zeros. Needs no GPU work.
  Status encodeTensorMap(void *map, bool bf16, const void *address, int rank,
                         const uint64_t *dims, const uint64_t *strideBytes,
                         const uint32_t *box);

  Result<void *> loadModule(const std::string &cubin);
  Result<void *> getFunction(void *module, const std::string &name);
  Status setDynamicShared(void *function, int bytes);
  Result<int> functionAttribute(void *function, int attribute);
  Result<int> occupancy(void *function, int threads, int dynamicShared);
  Status launch(void *function, unsigned gridX, unsigned gridY, unsigned gridZ,
                unsigned block, unsigned sharedBytes, Stream stream,
                void **args);

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

  struct Api;

private:
  Driver() = default;
  Status check(int result, const char *call) const;

  const Api *api_ = nullptr;
  void *context_ = nullptr;
  DeviceInfo device_;
};

/// A device buffer freed when it goes out of scope.
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
