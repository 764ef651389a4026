//===- Driver.cpp - The CUDA driver, loaded at first use ------------------===//

#include "attn/Runtime/Driver.h"

#include "SharedLibrary.h"

#include <cuda.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace attn {

// The versioned entry points are the ones cuda.h maps the plain names to.
struct Driver::Api {
  CUresult (*init)(unsigned);
  CUresult (*driverGetVersion)(int *);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetName)(char *, int, CUdevice);
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*deviceTotalMem)(size_t *, CUdevice);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*ctxSynchronize)();
  CUresult (*getErrorString)(CUresult, const char **);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*funcSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*funcGetAttribute)(int *, CUfunction_attribute, CUfunction);
  CUresult (*occupancyMaxActiveBlocks)(int *, CUfunction, int, size_t);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*memsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*eventCreate)(CUevent *, unsigned);
  CUresult (*eventDestroy)(CUevent);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*tensorMapEncodeTiled)(CUtensorMap *, CUtensorMapDataType,
                                   cuuint32_t, void *, const cuuint64_t *,
                                   const cuuint64_t *, const cuuint32_t *,
                                   const cuuint32_t *, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion,
                                   CUtensorMapFloatOOBfill);
};

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

Result<Driver *> Driver::get() {
  static std::once_flag once;
  static std::unique_ptr<Driver> instance;
  static Status failure;
  std::call_once(once, [] {
    if (std::getenv("ATTN_FORCE_NO_GPU")) {
      failure = Status(StatusCode::NoDevice,
                       "ATTN_FORCE_NO_GPU is set: the GPU is not used");
      return;
    }
    std::string tried;
    SharedLibrary library = SharedLibrary::open({"libcuda.so.1"}, tried);
    if (!library) {
      failure = Status(StatusCode::NoDevice,
                       "no CUDA driver (" + tried +
                           "); compiling works without one, running needs an "
                           "NVIDIA GPU and driver");
      return;
    }
    auto api = std::make_unique<Api>();
    library.bind(api->init, "cuInit");
    library.bind(api->driverGetVersion, "cuDriverGetVersion");
    library.bind(api->deviceGetCount, "cuDeviceGetCount");
    library.bind(api->deviceGet, "cuDeviceGet");
    library.bind(api->deviceGetName, "cuDeviceGetName");
    library.bind(api->deviceGetAttribute, "cuDeviceGetAttribute");
    library.bind(api->deviceTotalMem, "cuDeviceTotalMem_v2");
    library.bind(api->primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    library.bind(api->ctxSetCurrent, "cuCtxSetCurrent");
    library.bind(api->ctxSynchronize, "cuCtxSynchronize");
    library.bind(api->getErrorString, "cuGetErrorString");
    library.bind(api->moduleLoadData, "cuModuleLoadData");
    library.bind(api->moduleGetFunction, "cuModuleGetFunction");
    library.bind(api->funcSetAttribute, "cuFuncSetAttribute");
    library.bind(api->funcGetAttribute, "cuFuncGetAttribute");
    library.bind(api->occupancyMaxActiveBlocks,
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    library.bind(api->launchKernel, "cuLaunchKernel");
    library.bind(api->memAlloc, "cuMemAlloc_v2");
    library.bind(api->memFree, "cuMemFree_v2");
    library.bind(api->memcpyHtoD, "cuMemcpyHtoD_v2");
    library.bind(api->memcpyDtoH, "cuMemcpyDtoH_v2");
    library.bind(api->memsetD8, "cuMemsetD8_v2");
    library.bind(api->eventCreate, "cuEventCreate");
    library.bind(api->eventDestroy, "cuEventDestroy_v2");
    library.bind(api->eventRecord, "cuEventRecord");
    library.bind(api->eventSynchronize, "cuEventSynchronize");
    library.bind(api->eventElapsedTime, "cuEventElapsedTime");
    library.bind(api->tensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    if (!library.missing().empty()) {
      failure = Status(StatusCode::NoDevice,
                       "libcuda.so.1 lacks " + library.missing() +
                           "; the driver is too old for CUDA 12");
      return;
    }
    std::unique_ptr<Driver> driver(new Driver());
    driver->api_ = api.release();
    const Api &a = *driver->api_;
    Status s = driver->check(a.init(0), "cuInit");
    int count = 0;
    if (s)
      s = driver->check(a.deviceGetCount(&count), "cuDeviceGetCount");
    if (s && count == 0)
      s = Status(StatusCode::NoDevice, "the CUDA driver reports no GPU");
    if (!s) {
      failure = Status(StatusCode::NoDevice, "no usable GPU: " + s.message());
      return;
    }
    DeviceInfo &info = driver->device_;
    if (const char *ordinal = std::getenv("ATTN_DEVICE"))
      info.ordinal = std::atoi(ordinal);
    if (info.ordinal < 0 || info.ordinal >= count) {
      failure = Status(StatusCode::NoDevice,
                       "ATTN_DEVICE=" + std::to_string(info.ordinal) +
                           " but there are " + std::to_string(count) + " GPUs");
      return;
    }
    CUdevice device;
    CUcontext context;
    s = driver->check(a.deviceGet(&device, info.ordinal), "cuDeviceGet");
    if (s)
      s = driver->check(a.primaryCtxRetain(&context, device),
                        "cuDevicePrimaryCtxRetain");
    if (s)
      s = driver->check(a.ctxSetCurrent(context), "cuCtxSetCurrent");
    if (!s) {
      failure = s;
      return;
    }
    driver->context_ = context;
    char name[256] = {};
    a.deviceGetName(name, sizeof(name), device);
    info.name = name;
    auto attr = [&](CUdevice_attribute which) {
      int value = 0;
      a.deviceGetAttribute(&value, which, device);
      return value;
    };
    info.major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info.minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    info.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info.maxSharedPerBlockOptin =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    info.maxSharedPerMultiprocessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    info.maxRegistersPerMultiprocessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    info.maxThreadsPerMultiprocessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    info.l2Bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    info.clockKHz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    info.memoryClockKHz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    info.memoryBusWidth = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    a.deviceTotalMem(&info.memoryBytes, device);
    a.driverGetVersion(&info.driverVersion);
    instance = std::move(driver);
  });
  if (!instance)
    return failure;
  // The primary context must be current on every thread that uses it.
  instance->api_->ctxSetCurrent(static_cast<CUcontext>(instance->context_));
  return instance.get();
}

Status Driver::encodeTensorMap(void *map, bool bf16, const void *address,
                               int rank, const uint64_t *dims,
                               const uint64_t *strideBytes,
                               const uint32_t *box) {
  static_assert(sizeof(CUtensorMap) == 128, "a tensor map is 128 bytes");
  if (reinterpret_cast<uintptr_t>(map) % 64)
    return Status(StatusCode::InvalidArgument,
                  "a tensor map must be 64-byte aligned");
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

Result<DevicePtr> Driver::allocate(size_t bytes) {
  CUdeviceptr ptr;
  Status s = check(api_->memAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc");
  if (!s)
    return s;
  return static_cast<DevicePtr>(ptr);
}

Status Driver::free(DevicePtr ptr) {
  return check(api_->memFree(static_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

Status Driver::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  return check(api_->memcpyHtoD(static_cast<CUdeviceptr>(dst), src, bytes),
               "cuMemcpyHtoD");
}

Status Driver::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  return check(api_->memcpyDtoH(dst, static_cast<CUdeviceptr>(src), bytes),
               "cuMemcpyDtoH");
}

Status Driver::fill(DevicePtr dst, unsigned char value, size_t bytes) {
  return check(api_->memsetD8(static_cast<CUdeviceptr>(dst), value, bytes),
               "cuMemsetD8");
}

Status Driver::synchronize() {
  return check(api_->ctxSynchronize(), "cuCtxSynchronize");
}

Result<void *> Driver::createEvent() {
  CUevent event;
  Status s = check(api_->eventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  if (!s)
    return s;
  return static_cast<void *>(event);
}

Status Driver::destroyEvent(void *event) {
  return check(api_->eventDestroy(static_cast<CUevent>(event)),
               "cuEventDestroy");
}

Status Driver::recordEvent(void *event, Stream stream) {
  return check(api_->eventRecord(static_cast<CUevent>(event),
                                 static_cast<CUstream>(stream)),
               "cuEventRecord");
}

Result<float> Driver::elapsedMs(void *start, void *stop) {
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
