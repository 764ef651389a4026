//===- Driver.cpp - The CUDA driver, loaded at first use ------------------===//

#include "attn/Runtime/Driver.h"

#include "DriverApi.h"
#include "SharedLibrary.h"

#include <cstdlib>
#include <memory>
#include <mutex>

namespace attn {

std::string DeviceInfo::arch() const {
  std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
  if (major == 9 && minor == 0)
    arch += "a";
  return arch;
}

double DeviceInfo::peakBandwidthGBs() const {
  // DDR: two transfers per clock.
  return 2.0 * memoryClockKHz * 1e3 * (memoryBusWidth / 8.0) / 1e9;
}

Status Driver::check(int result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  const char *text = nullptr;
  if (api_ && api_->getErrorString)
    api_->getErrorString(static_cast<CUresult>(result), &text);
  return Status(StatusCode::DriverError,
                std::string(call) + " failed: " + (text ? text : "unknown error") +
                    " (" + std::to_string(result) + ")");
}

namespace {

/// The real driver's entry points, bound once; null with `failure` set where
/// there is none.
const Driver::Api *realApi(Status &failure) {
  static Status why;
  static const Driver::Api *api = []() -> const Driver::Api * {
    if (std::getenv("ATTN_FORCE_NO_GPU")) {
      why = Status(StatusCode::NoDevice,
                   "ATTN_FORCE_NO_GPU is set: the GPU is not used");
      return nullptr;
    }
    std::string tried;
    SharedLibrary library = SharedLibrary::open({"libcuda.so.1"}, tried);
    if (!library) {
      why = Status(StatusCode::NoDevice,
                   "no CUDA driver (" + tried +
                       "); compiling works without one, running needs an "
                       "NVIDIA GPU and driver");
      return nullptr;
    }
    auto a = std::make_unique<Driver::Api>();
    library.bind(a->init, "cuInit");
    library.bind(a->driverGetVersion, "cuDriverGetVersion");
    library.bind(a->deviceGetCount, "cuDeviceGetCount");
    library.bind(a->deviceGet, "cuDeviceGet");
    library.bind(a->deviceGetName, "cuDeviceGetName");
    library.bind(a->deviceGetAttribute, "cuDeviceGetAttribute");
    library.bind(a->deviceTotalMem, "cuDeviceTotalMem_v2");
    library.bind(a->primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    library.bind(a->ctxGetCurrent, "cuCtxGetCurrent");
    library.bind(a->ctxPushCurrent, "cuCtxPushCurrent_v2");
    library.bind(a->ctxPopCurrent, "cuCtxPopCurrent_v2");
    library.bind(a->ctxGetDevice, "cuCtxGetDevice");
    library.bind(a->ctxSynchronize, "cuCtxSynchronize");
    library.bind(a->getErrorString, "cuGetErrorString");
    library.bind(a->streamIsCapturing, "cuStreamIsCapturing");
    library.bind(a->pointerGetAttributes, "cuPointerGetAttributes");
    library.bind(a->moduleLoadData, "cuModuleLoadData");
    library.bind(a->moduleUnload, "cuModuleUnload");
    library.bind(a->moduleGetFunction, "cuModuleGetFunction");
    library.bind(a->funcSetAttribute, "cuFuncSetAttribute");
    library.bind(a->funcGetAttribute, "cuFuncGetAttribute");
    library.bind(a->occupancyMaxActiveBlocks,
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    library.bind(a->launchKernel, "cuLaunchKernel");
    library.bind(a->memAlloc, "cuMemAlloc_v2");
    library.bind(a->memFree, "cuMemFree_v2");
    library.bind(a->memcpyHtoD, "cuMemcpyHtoD_v2");
    library.bind(a->memcpyDtoH, "cuMemcpyDtoH_v2");
    library.bind(a->memsetD8, "cuMemsetD8_v2");
    library.bind(a->memsetD32Async, "cuMemsetD32Async");
    library.bind(a->eventCreate, "cuEventCreate");
    library.bind(a->eventDestroy, "cuEventDestroy_v2");
    library.bind(a->eventRecord, "cuEventRecord");
    library.bind(a->eventSynchronize, "cuEventSynchronize");
    library.bind(a->eventElapsedTime, "cuEventElapsedTime");
    library.bind(a->tensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    if (!library.missing().empty()) {
      why = Status(StatusCode::NoDevice,
                   "libcuda.so.1 lacks " + library.missing() +
                       "; the driver is too old for CUDA 12");
      return nullptr;
    }
    return a.release(); // lives as long as the process, like libcuda
  }();
  failure = why;
  return api;
}

/// The driver a test installed (overrideForTesting), if any.
std::atomic<Driver *> testDriver{nullptr};

} // namespace

Result<std::unique_ptr<Driver>> Driver::create(const Api *api) {
  std::unique_ptr<Driver> driver(new Driver());
  driver->api_ = api;
  const Api &a = *api;
  Status s = driver->check(a.init(0), "cuInit");
  int count = 0;
  if (s)
    s = driver->check(a.deviceGetCount(&count), "cuDeviceGetCount");
  if (s && count == 0)
    s = Status(StatusCode::NoDevice, "the CUDA driver reports no GPU");
  if (!s)
    return Status(StatusCode::NoDevice, "no usable GPU: " + s.message());
  driver->deviceCount_ = count;
  driver->primaryContexts_.reset(new std::atomic<void *>[count]);
  for (int i = 0; i < count; ++i)
    driver->primaryContexts_[i] = nullptr;
  driver->devices_.resize(count);
  int ordinal = 0;
  if (const char *text = std::getenv("ATTN_DEVICE"))
    ordinal = std::atoi(text);
  if (ordinal < 0 || ordinal >= count)
    return Status(StatusCode::NoDevice,
                  "ATTN_DEVICE=" + std::to_string(ordinal) + " but there are " +
                      std::to_string(count) + " GPUs");
  Result<const DeviceInfo *> info = driver->deviceInfo(ordinal);
  if (!info)
    return info.status();
  driver->defaultDevice_ = *info;
  return driver;
}

Result<Driver *> Driver::get() {
  if (Driver *fake = testDriver.load(std::memory_order_acquire))
    return fake;
  static Status failure;
  // Never destroyed: kernels and buffers held by static objects may release
  // their modules and memory at exit, after this would have been.
  static Driver *instance = [] {
    Status why;
    const Api *api = realApi(why);
    if (!api) {
      failure = why;
      return static_cast<Driver *>(nullptr);
    }
    Result<std::unique_ptr<Driver>> driver = create(api);
    if (!driver) {
      failure = driver.status();
      return static_cast<Driver *>(nullptr);
    }
    return driver->release();
  }();
  if (!instance)
    return failure;
  return instance;
}

Status Driver::overrideForTesting(const Api *api) {
  Driver *previous = testDriver.exchange(nullptr);
  delete previous;
  if (!api)
    return Status::ok();
  Result<std::unique_ptr<Driver>> driver = create(api);
  if (!driver)
    return driver.status();
  testDriver.store(driver->release(), std::memory_order_release);
  return Status::ok();
}

Result<const DeviceInfo *> Driver::deviceInfo(int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount_)
    return Status(StatusCode::InvalidArgument,
                  "device " + std::to_string(ordinal) + " does not exist; there are " +
                      std::to_string(deviceCount_) + " GPUs");
  std::lock_guard<std::mutex> lock(mutex_);
  if (devices_[ordinal])
    return devices_[ordinal].get();
  const Api &a = *api_;
  CUdevice device;
  if (Status s = check(a.deviceGet(&device, ordinal), "cuDeviceGet"); !s)
    return s;
  auto info = std::make_unique<DeviceInfo>();
  info->ordinal = ordinal;
  char name[256] = {};
  a.deviceGetName(name, sizeof(name), device);
  info->name = name;
  auto attr = [&](CUdevice_attribute which) {
    int value = 0;
    a.deviceGetAttribute(&value, which, device);
    return value;
  };
  info->major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info->minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info->multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info->maxSharedPerBlockOptin =
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info->maxSharedPerMultiprocessor =
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info->maxRegistersPerMultiprocessor =
      attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info->maxThreadsPerMultiprocessor =
      attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info->l2Bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info->clockKHz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info->memoryClockKHz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info->memoryBusWidth = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  a.deviceTotalMem(&info->memoryBytes, device);
  a.driverGetVersion(&info->driverVersion);
  devices_[ordinal] = std::move(info);
  return devices_[ordinal].get();
}

Result<void *> Driver::primaryContext(int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount_)
    return Status(StatusCode::InvalidArgument,
                  "device " + std::to_string(ordinal) + " does not exist; there are " +
                      std::to_string(deviceCount_) + " GPUs");
  if (void *context = primaryContexts_[ordinal].load(std::memory_order_acquire))
    return context;
  std::lock_guard<std::mutex> lock(mutex_);
  if (void *context = primaryContexts_[ordinal].load())
    return context;
  CUdevice device;
  CUcontext context;
  Status s = check(api_->deviceGet(&device, ordinal), "cuDeviceGet");
  // Retained once and never released: the CUDA runtime shares it.
  if (s)
    s = check(api_->primaryCtxRetain(&context, device),
              "cuDevicePrimaryCtxRetain");
  if (!s)
    return s;
  primaryContexts_[ordinal].store(context, std::memory_order_release);
  return static_cast<void *>(context);
}

Result<Driver::Entered> Driver::enterForLaunch(Device device) {
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  Result<ContextScope> scope = (*driver)->enter(device);
  if (!scope)
    return scope.status();
  return Entered{*driver, std::move(*scope)};
}

Result<ContextScope> Driver::enter(Device device) {
  CUcontext current = nullptr;
  if (Status s = check(api_->ctxGetCurrent(&current), "cuCtxGetCurrent"); !s)
    return s;
  void *wanted = device.context;
  if (!wanted) {
    if (device.ordinal < 0 && current)
      return ContextScope(this, current, false);
    Result<void *> primary = primaryContext(
        device.ordinal >= 0 ? device.ordinal : defaultDevice_->ordinal);
    if (!primary)
      return primary.status();
    wanted = *primary;
  }
  if (wanted == current)
    return ContextScope(this, current, false);
  if (Status s = check(api_->ctxPushCurrent(static_cast<CUcontext>(wanted)),
                       "cuCtxPushCurrent");
      !s)
    return s;
  return ContextScope(this, wanted, true);
}

ContextScope::ContextScope(ContextScope &&other) noexcept
    : driver_(other.driver_), context_(other.context_), pushed_(other.pushed_) {
  other.pushed_ = false;
}

ContextScope::~ContextScope() {
  if (pushed_) {
    CUcontext popped;
    driver_->api_->ctxPopCurrent(&popped);
  }
}

Result<int> Driver::currentOrdinal() const {
  CUdevice device;
  if (Status s = check(api_->ctxGetDevice(&device), "cuCtxGetDevice"); !s)
    return s;
  return static_cast<int>(device);
}

Result<bool> Driver::isCapturing(Stream stream) const {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (Status s = check(api_->streamIsCapturing(static_cast<CUstream>(stream),
                                               &status),
                       "cuStreamIsCapturing");
      !s)
    return s;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

PointerInfo Driver::pointerInfo(const void *pointer) const {
  unsigned memoryType = 0, managed = 0;
  int ordinal = -1;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                      CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void *values[] = {&memoryType, &managed, &ordinal};
  PointerInfo info;
  // Memory the driver does not know gets null values and CUDA_SUCCESS; an
  // error means it could not tell (then nothing is claimed).
  if (api_->pointerGetAttributes(3, attributes, values,
                                 reinterpret_cast<CUdeviceptr>(pointer)) !=
      CUDA_SUCCESS) {
    info.checked = false;
    return info;
  }
  info.ordinal = ordinal;
  if (managed)
    info.kind = PointerInfo::Kind::Managed;
  else if (memoryType == CU_MEMORYTYPE_DEVICE)
    info.kind = PointerInfo::Kind::Device;
  else if (memoryType == CU_MEMORYTYPE_HOST)
    info.kind = PointerInfo::Kind::Host;
  return info;
}

Status Driver::encodeTensorMap(void *map, bool bf16, const void *address,
                               int rank, const uint64_t *dims,
                               const uint64_t *strideBytes,
                               const uint32_t *box) {
  static_assert(sizeof(CUtensorMap) == 128, "a tensor map is 128 bytes");
  if (reinterpret_cast<uintptr_t>(map) % 64)
    return Status(StatusCode::InvalidArgument,
                  "a tensor map must be 64-byte aligned");
  if (!api_->tensorMapEncodeTiled)
    return Status(StatusCode::Unsupported,
                  "the driver has no cuTensorMapEncodeTiled");
  const cuuint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  return check(api_->tensorMapEncodeTiled(
                   static_cast<CUtensorMap *>(map),
                   bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                   static_cast<cuuint32_t>(rank), const_cast<void *>(address),
                   reinterpret_cast<const cuuint64_t *>(dims),
                   reinterpret_cast<const cuuint64_t *>(strideBytes),
                   reinterpret_cast<const cuuint32_t *>(box), elementStrides,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               "cuTensorMapEncodeTiled");
}

Result<void *> Driver::loadModule(const std::string &cubin) {
  CUmodule module;
  Status s = check(api_->moduleLoadData(&module, cubin.data()),
                   "cuModuleLoadData");
  if (!s)
    return s;
  return static_cast<void *>(module);
}

Status Driver::unloadModule(void *module) {
  return check(api_->moduleUnload(static_cast<CUmodule>(module)),
               "cuModuleUnload");
}

Result<void *> Driver::getFunction(void *module, const std::string &name) {
  CUfunction function;
  Status s = check(api_->moduleGetFunction(&function,
                                           static_cast<CUmodule>(module),
                                           name.c_str()),
                   "cuModuleGetFunction");
  if (!s)
    return s;
  return static_cast<void *>(function);
}

Status Driver::setDynamicShared(void *function, int bytes) {
  return check(api_->funcSetAttribute(
                   static_cast<CUfunction>(function),
                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

Result<int> Driver::functionAttribute(void *function, int attribute) {
  int value = 0;
  Status s = check(api_->funcGetAttribute(
                       &value, static_cast<CUfunction_attribute>(attribute),
                       static_cast<CUfunction>(function)),
                   "cuFuncGetAttribute");
  if (!s)
    return s;
  return value;
}

Result<int> Driver::occupancy(void *function, int threads, int dynamicShared) {
  int blocks = 0;
  Status s = check(api_->occupancyMaxActiveBlocks(
                       &blocks, static_cast<CUfunction>(function), threads,
                       dynamicShared),
                   "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  if (!s)
    return s;
  return blocks;
}

Status Driver::launch(void *function, unsigned gridX, unsigned gridY,
                      unsigned gridZ, unsigned block, unsigned sharedBytes,
                      Stream stream, void **args) {
  return check(api_->launchKernel(static_cast<CUfunction>(function), gridX,
                                  gridY, gridZ, block, 1, 1, sharedBytes,
                                  static_cast<CUstream>(stream), args, nullptr),
               "cuLaunchKernel");
}

Status Driver::fillWordsAsync(DevicePtr dst, unsigned value, size_t count,
                              Stream stream) {
  return check(api_->memsetD32Async(static_cast<CUdeviceptr>(dst), value,
                                    count, static_cast<CUstream>(stream)),
               "cuMemsetD32Async");
}

Result<DevicePtr> Driver::allocate(size_t bytes) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  CUdeviceptr ptr;
  Status s = check(api_->memAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc");
  if (!s)
    return s;
  return static_cast<DevicePtr>(ptr);
}

Status Driver::free(DevicePtr ptr) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  return check(api_->memFree(static_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

Status Driver::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  return check(api_->memcpyHtoD(static_cast<CUdeviceptr>(dst), src, bytes),
               "cuMemcpyHtoD");
}

Status Driver::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  return check(api_->memcpyDtoH(dst, static_cast<CUdeviceptr>(src), bytes),
               "cuMemcpyDtoH");
}

Status Driver::fill(DevicePtr dst, unsigned char value, size_t bytes) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  return check(api_->memsetD8(static_cast<CUdeviceptr>(dst), value, bytes),
               "cuMemsetD8");
}

Status Driver::synchronize() {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  return check(api_->ctxSynchronize(), "cuCtxSynchronize");
}

Result<void *> Driver::createEvent() {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  CUevent event;
  Status s = check(api_->eventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  if (!s)
    return s;
  return static_cast<void *>(event);
}

Status Driver::destroyEvent(void *event) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  return check(api_->eventDestroy(static_cast<CUevent>(event)),
               "cuEventDestroy");
}

Status Driver::recordEvent(void *event, Stream stream) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  return check(api_->eventRecord(static_cast<CUevent>(event),
                                 static_cast<CUstream>(stream)),
               "cuEventRecord");
}

Result<float> Driver::elapsedMs(void *start, void *stop) {
  Result<ContextScope> scope = enter(Device::current());
  if (!scope)
    return scope.status();
  Status s = check(api_->eventSynchronize(static_cast<CUevent>(stop)),
                   "cuEventSynchronize");
  if (!s)
    return s;
  float ms = 0.f;
  s = check(api_->eventElapsedTime(&ms, static_cast<CUevent>(start),
                                   static_cast<CUevent>(stop)),
            "cuEventElapsedTime");
  if (!s)
    return s;
  return ms;
}

Result<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  Result<DevicePtr> ptr = (*driver)->allocate(bytes);
  if (!ptr)
    return ptr.status();
  DeviceBuffer buffer;
  buffer.ptr_ = *ptr;
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    this->~DeviceBuffer();
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    other.ptr_ = 0;
    other.bytes_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    if (Result<Driver *> driver = Driver::get())
      (void)(*driver)->free(ptr_);
  ptr_ = 0;
}

} // namespace attn
