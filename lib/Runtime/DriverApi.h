//===- DriverApi.h - The driver entry points attn binds ---------*- C++ -*-===//
//
// Runtime-internal (and for tests that fake the driver): the versioned entry
// points cuda.h maps the plain names to.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_RUNTIME_DRIVERAPI_H
#define ATTN_LIB_RUNTIME_DRIVERAPI_H

#include "attn/Runtime/Driver.h"

#include <cuda.h>

namespace attn {

struct Driver::Api {
  CUresult (*init)(unsigned);
  CUresult (*driverGetVersion)(int *);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetName)(char *, int, CUdevice);
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*deviceTotalMem)(size_t *, CUdevice);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxGetCurrent)(CUcontext *);
  CUresult (*ctxPushCurrent)(CUcontext);
  CUresult (*ctxPopCurrent)(CUcontext *);
  CUresult (*ctxGetDevice)(CUdevice *);
  CUresult (*ctxSynchronize)();
  CUresult (*getErrorString)(CUresult, const char **);
  CUresult (*streamIsCapturing)(CUstream, CUstreamCaptureStatus *);
  CUresult (*pointerGetAttributes)(unsigned, CUpointer_attribute *, void **,
                                   CUdeviceptr);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleUnload)(CUmodule);
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
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
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

} // namespace attn

#endif // ATTN_LIB_RUNTIME_DRIVERAPI_H
