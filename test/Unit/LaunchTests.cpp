//===- LaunchTests.cpp - Launches against a fake CUDA driver -------------===//
//
// The launch path without a GPU: a fake driver (Driver::overrideForTesting)
// records contexts pushed, pointers asked about, allocations,
// synchronizations and launches, so that these tests can check which
// context a launch runs in, that the caller's context is restored, that
// host or foreign-device pointers never reach a launch, that a launch
// neither allocates nor synchronizes, that nothing is loaded during stream
// capture, and how long the host side of a launch takes.
//
//===----------------------------------------------------------------------===//

#include "DriverApi.h"

#include "attn/Runtime/Context.h"
#include "attn/Runtime/KernelGroup.h"
#include "attn/Runtime/Log.h"
#include "attn/params.h"
#include "attn/params_bwd.h"

#include "MemoryContext.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <vector>

using namespace attn;

namespace {

/// What the fake driver saw; one test at a time, one thread.
struct FakeState {
  std::vector<CUcontext> stack; ///< back(): the current context
  int pushes = 0, pops = 0, loads = 0, unloads = 0, allocations = 0,
      synchronizations = 0;
  bool capturing = false;
  bool refuseTensorMaps = false; ///< cuTensorMapEncodeTiled fails
  struct Launch {
    CUfunction function;
    unsigned grid[3], block, shared;
    CUstream stream;
    CUcontext context;
    FlashParams params;        ///< of a forward launch
    FlashBwdParams bwdParams;  ///< of a backward launch ("fake_bwd_*")
    int stagesOutput = -1;     ///< TmaMaps::stages_output (persistent)
  };
  /// Tensor maps of this address fail to encode (strides TMA rejects).
  const void *rejectedMapAddress = nullptr;
  /// The tensor maps encoded, in order.
  struct TensorMapEncode {
    const void *address;
    unsigned rank;
    std::vector<uint64_t> dims, strideBytes;
    std::vector<uint32_t> box;
  };
  std::vector<TensorMapEncode> tensorMaps;
  std::vector<Launch> launches;
  struct Memset {
    CUdeviceptr dst;
    unsigned value;
    size_t count;
    CUstream stream;
    size_t launchesBefore;
  };
  std::vector<Memset> memsets;
  std::map<CUfunction, std::string> functionNames;
};
FakeState state;

CUcontext primary(int ordinal) {
  return reinterpret_cast<CUcontext>(uintptr_t(0x1000 * (ordinal + 1)));
}
/// A context of the caller's own, on device 1.
const CUcontext userContext = reinterpret_cast<CUcontext>(uintptr_t(0x9000));

// Fake device memory: device 0 at [1 << 40, +1 GiB), device 1 after it;
// pinned host memory at 3 << 40.
constexpr uintptr_t kDeviceBase = uintptr_t(1) << 40, kDeviceSpan = 1 << 30;
constexpr uintptr_t kPinnedBase = uintptr_t(3) << 40;
void *deviceMemory(int ordinal, size_t offset = 0) {
  return reinterpret_cast<void *>(kDeviceBase + ordinal * kDeviceSpan + offset);
}

CUresult ok() { return CUDA_SUCCESS; }

Driver::Api fakeApi() {
  Driver::Api a = {};
  a.init = [](unsigned) { return ok(); };
  a.driverGetVersion = [](int *v) { *v = 13000; return ok(); };
  a.deviceGetCount = [](int *n) { *n = 2; return ok(); };
  a.deviceGet = [](CUdevice *d, int ordinal) { *d = ordinal; return ok(); };
  a.deviceGetName = [](char *name, int size, CUdevice) {
    std::strncpy(name, "Fake H200", size);
    return ok();
  };
  a.deviceGetAttribute = [](int *value, CUdevice_attribute which, CUdevice) {
    switch (which) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 232448; break;
    default: *value = 1; break;
    }
    return ok();
  };
  a.deviceTotalMem = [](size_t *bytes, CUdevice) { *bytes = size_t(1) << 30; return ok(); };
  a.primaryCtxRetain = [](CUcontext *c, CUdevice d) { *c = primary(d); return ok(); };
  a.ctxGetCurrent = [](CUcontext *c) {
    *c = state.stack.empty() ? nullptr : state.stack.back();
    return ok();
  };
  a.ctxPushCurrent = [](CUcontext c) {
    state.stack.push_back(c);
    ++state.pushes;
    return ok();
  };
  a.ctxPopCurrent = [](CUcontext *c) {
    *c = state.stack.back();
    state.stack.pop_back();
    ++state.pops;
    return ok();
  };
  a.ctxGetDevice = [](CUdevice *d) {
    CUcontext c = state.stack.back();
    *d = c == primary(0) ? 0 : 1;
    return ok();
  };
  a.ctxSynchronize = [] { ++state.synchronizations; return ok(); };
  a.getErrorString = [](CUresult, const char **text) { *text = "fake error"; return ok(); };
  a.streamIsCapturing = [](CUstream, CUstreamCaptureStatus *status) {
    *status = state.capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                              : CU_STREAM_CAPTURE_STATUS_NONE;
    return ok();
  };
  a.pointerGetAttributes = [](unsigned count, CUpointer_attribute *attributes,
                              void **values, CUdeviceptr pointer) {
    uintptr_t p = static_cast<uintptr_t>(pointer);
    unsigned type = 0;
    int ordinal = -1;
    if (p >= kDeviceBase && p < kDeviceBase + 2 * kDeviceSpan) {
      type = CU_MEMORYTYPE_DEVICE;
      ordinal = int((p - kDeviceBase) / kDeviceSpan);
    } else if (p >= kPinnedBase && p < kPinnedBase + kDeviceSpan) {
      type = CU_MEMORYTYPE_HOST;
      ordinal = 0;
    }
    for (unsigned i = 0; i < count; ++i) {
      if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
        *static_cast<unsigned *>(values[i]) = type;
      else if (attributes[i] == CU_POINTER_ATTRIBUTE_IS_MANAGED)
        *static_cast<unsigned *>(values[i]) = 0;
      else if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
        *static_cast<int *>(values[i]) = ordinal;
    }
    return ok();
  };
  a.moduleLoadData = [](CUmodule *m, const void *) {
    *m = reinterpret_cast<CUmodule>(uintptr_t(0x100 + ++state.loads));
    return ok();
  };
  a.moduleUnload = [](CUmodule) { ++state.unloads; return ok(); };
  a.moduleGetFunction = [](CUfunction *f, CUmodule m, const char *name) {
    // One function per entry: the main one, _combine, and the backward's.
    int entry = std::strstr(name, "_combine")   ? 1
                : std::strstr(name, "_pre")     ? 2
                : std::strstr(name, "_dq")      ? 3
                : std::strstr(name, "_convert") ? 4
                                                : 0;
    *f = reinterpret_cast<CUfunction>(reinterpret_cast<uintptr_t>(m) * 16 + entry);
    state.functionNames[*f] = name;
    return ok();
  };
  a.funcSetAttribute = [](CUfunction, CUfunction_attribute, int) { return ok(); };
  a.funcGetAttribute = [](int *v, CUfunction_attribute, CUfunction) { *v = 128; return ok(); };
  a.occupancyMaxActiveBlocks = [](int *blocks, CUfunction, int, size_t) {
    *blocks = 1;
    return ok();
  };
  a.launchKernel = [](CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned, unsigned, unsigned shared,
                      CUstream stream, void **args, void **) {
    FakeState::Launch l;
    l.function = f;
    l.grid[0] = gx;
    l.grid[1] = gy;
    l.grid[2] = gz;
    l.block = bx;
    l.shared = shared;
    l.stream = stream;
    l.context = state.stack.empty() ? nullptr : state.stack.back();
    if (state.functionNames[f].rfind("fake_bwd", 0) == 0)
      l.bwdParams = *static_cast<FlashBwdParams *>(args[0]);
    else
      l.params = *static_cast<FlashParams *>(args[0]);
    if (state.functionNames[f].find("_ws") != std::string::npos)
      l.stagesOutput = static_cast<TmaMaps *>(args[1])->stages_output;
    state.launches.push_back(l);
    return ok();
  };
  a.memAlloc = [](CUdeviceptr *p, size_t) {
    ++state.allocations;
    *p = reinterpret_cast<CUdeviceptr>(deviceMemory(0, 1 << 20));
    return ok();
  };
  a.memFree = [](CUdeviceptr) { return ok(); };
  a.memcpyHtoD = [](CUdeviceptr, const void *, size_t) { return ok(); };
  a.memcpyDtoH = [](void *, CUdeviceptr, size_t) { return ok(); };
  a.memsetD8 = [](CUdeviceptr, unsigned char, size_t) { return ok(); };
  a.memsetD32Async = [](CUdeviceptr dst, unsigned value, size_t count,
                        CUstream stream) {
    state.memsets.push_back({dst, value, count, stream, state.launches.size()});
    return ok();
  };
  a.tensorMapEncodeTiled = [](CUtensorMap *, CUtensorMapDataType,
                              cuuint32_t rank, void *address,
                              const cuuint64_t *dims,
                              const cuuint64_t *strides, const cuuint32_t *box,
                              const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion,
                              CUtensorMapFloatOOBfill) {
    state.tensorMaps.push_back({address, rank,
                                std::vector<uint64_t>(dims, dims + rank),
                                std::vector<uint64_t>(strides, strides + rank - 1),
                                std::vector<uint32_t>(box, box + rank)});
    return state.refuseTensorMaps ||
                   (address && address == state.rejectedMapAddress)
               ? CUDA_ERROR_INVALID_VALUE
               : ok();
  };
  a.eventCreate = [](CUevent *, unsigned) { return ok(); };
  a.eventDestroy = [](CUevent) { return ok(); };
  a.eventRecord = [](CUevent, CUstream) { return ok(); };
  a.eventSynchronize = [](CUevent) { return ok(); };
  a.eventElapsedTime = [](float *ms, CUevent, CUevent) { *ms = 0; return ok(); };
  return a;
}

/// The spec the fake kernels share: sm80 tiles of 64 x 64, 4 warps, 2
/// stages, GQA 8/2.
KernelSpec fakeSpec(const std::string &name) {
  KernelSpec spec;
  spec.name = name;
  spec.variant = "sm80";
  spec.threads = 128;
  spec.blockM = 64;
  spec.blockN = 64;
  spec.numWarps = 4;
  spec.stages = 2;
  spec.headsQ = 8;
  spec.headsKV = 2;
  spec.scale = 0.125f;
  return spec;
}

/// `spec`, edited by `edit`, compiled by NVRTC for sm_90a (no GPU needed):
/// the fake driver never runs it.
std::shared_ptr<Kernel> buildFakeKernel(KernelSpec spec,
                                        void (*edit)(KernelSpec &)) {
  std::unique_ptr<Context> context = test::memoryContext("sm_90a");
  if (edit)
    edit(spec);
  auto kernel = context->build(spec);
  EXPECT_TRUE(kernel.isOk()) << kernel.status().toString();
  return *kernel;
}

/// A fused-attention kernel from a trivial source, head dim 128, as the
/// group that launches it.
std::shared_ptr<KernelGroup>
buildFakeFlashKernel(const std::string &name,
                     void (*edit)(KernelSpec &) = nullptr) {
  KernelSpec spec = fakeSpec(name);
  spec.source = "#include \"attn/params.h\"\n"
                "extern \"C\" __global__ void " + name + "(attn::FlashParams) {}\n"
                "extern \"C\" __global__ void " + name + "_combine(attn::FlashParams) {}\n";
  spec.headDimQK = spec.headDimV = 128;
  return std::make_shared<KernelGroup>(buildFakeKernel(std::move(spec), edit));
}

/// The tiles of a persistent (sm90ws) kernel: two consumer warpgroups of 64
/// rows and the producer.
void persistentTiles(KernelSpec &spec) {
  spec.variant = "sm90ws";
  spec.threads = 384;
  spec.blockM = 128;
  spec.numWarps = 12;
}

/// A backward kernel (its four entries) from a trivial source: causal, head
/// dim 64.
std::shared_ptr<BackwardKernel>
buildFakeBackwardKernel(const std::string &name,
                        void (*edit)(KernelSpec &) = nullptr) {
  KernelSpec spec = fakeSpec(name);
  spec.kind = KernelKind::FlashBackward;
  spec.source = "#include \"attn/params_bwd.h\"\n";
  for (const char *entry : {"", "_dq", "_pre", "_convert"})
    spec.source += "extern \"C\" __global__ void " + name + entry +
                   "(attn::FlashBwdParams) {}\n";
  // A variant that adds dQ with atomics (the backward table's atomicDq).
  spec.variant = "sm90";
  spec.headDimQK = spec.headDimV = 64;
  spec.causal = true;
  spec.backwardDqThreads = 128;
  spec.backwardDqSharedBytes = 1024;
  spec.sharedBytes = 2048;
  return kernelAs<BackwardKernel>(buildFakeKernel(std::move(spec), edit));
}

class FakeDriverLaunch : public ::testing::Test {
protected:
  void SetUp() override {
    state = FakeState();
    api = fakeApi();
    ASSERT_TRUE(Driver::overrideForTesting(&api).isOk());
  }
  void TearDown() override { (void)Driver::overrideForTesting(nullptr); }

  /// Decode-shaped operands on `ordinal`: q [2, 8, 1, 128], k/v [2, 2,
  /// 1000, 128], o like q.
  FlashArgs decodeArgs(int ordinal) {
    FlashArgs a;
    a.batch = 2;
    a.seqQ = 1;
    a.seqKV = 1000;
    int64_t qShape[4] = {2, 8, 1, 128}, kvShape[4] = {2, 2, 1000, 128};
    a.q = TensorArg::contiguous(deviceMemory(ordinal, 0), qShape);
    a.k = TensorArg::contiguous(deviceMemory(ordinal, 1 << 16), kvShape);
    a.v = TensorArg::contiguous(deviceMemory(ordinal, 1 << 22), kvShape);
    a.o = TensorArg::contiguous(deviceMemory(ordinal, 1 << 28), qShape);
    return a;
  }

  /// Backward operands on `ordinal`: q, o, dO, dQ [2, 8, 300, 64]; k, v,
  /// dK, dV [2, 2, 300, 64]; the logsumexp.
  BackwardArgs backwardArgs(int ordinal) {
    BackwardArgs a;
    a.batch = 2;
    a.seqQ = a.seqKV = 300;
    int64_t qShape[4] = {2, 8, 300, 64}, kvShape[4] = {2, 2, 300, 64};
    size_t offset = 0;
    auto next = [&](const int64_t *shape) {
      offset += 1 << 22;
      return TensorArg::contiguous(deviceMemory(ordinal, offset), shape);
    };
    a.q = next(qShape);
    a.k = next(kvShape);
    a.v = next(kvShape);
    a.o = next(qShape);
    a.gradOutput = next(qShape);
    a.gradQ = next(qShape);
    a.gradK = next(kvShape);
    a.gradV = next(kvShape);
    a.lse = static_cast<const float *>(deviceMemory(ordinal, 1 << 29));
    return a;
  }

  Driver::Api api;
};

TEST_F(FakeDriverLaunch, RunsInTheNamedDeviceAndRestoresTheCallersContext) {
  auto kernel = buildFakeFlashKernel("fake_flash_devices");
  FlashArgs args = decodeArgs(1);
  args.splits = 1;
  state.stack.push_back(primary(0)); // the caller works on device 0
  Status s = kernel->launch(args, nullptr, Device::primary(1));
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(state.launches.size(), 1u);
  EXPECT_EQ(state.launches[0].context, primary(1));
  EXPECT_EQ(state.stack, std::vector<CUcontext>{primary(0)});
  EXPECT_EQ(state.pushes, state.pops);
  EXPECT_EQ(state.loads, 1);

  // The caller's own context (on device 1) is used as given.
  s = kernel->launch(args, nullptr, Device::ofContext(userContext));
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(state.launches.back().context, userContext);
  EXPECT_EQ(state.loads, 2); // a module per context
  EXPECT_EQ(state.stack, std::vector<CUcontext>{primary(0)});
}

TEST_F(FakeDriverLaunch, NoContextSwitchWhenTheContextIsCurrent) {
  auto kernel = buildFakeFlashKernel("fake_flash_current");
  FlashArgs args = decodeArgs(1);
  args.splits = 1;
  state.stack.push_back(primary(1));
  ASSERT_TRUE(kernel->launch(args).isOk());                        // current
  ASSERT_TRUE(kernel->launch(args, nullptr, Device::primary(1)).isOk()); // named
  EXPECT_EQ(state.pushes, 0);
  EXPECT_EQ(state.launches.size(), 2u);
  EXPECT_EQ(state.launches[1].context, primary(1));
}

TEST_F(FakeDriverLaunch, WithoutACurrentContextTheDefaultDevicesIsPushedAndPopped) {
  auto kernel = buildFakeFlashKernel("fake_flash_default");
  FlashArgs args = decodeArgs(0);
  args.splits = 1;
  ASSERT_TRUE(kernel->launch(args).isOk());
  EXPECT_EQ(state.launches[0].context, primary(0)); // $ATTN_DEVICE unset: 0
  EXPECT_TRUE(state.stack.empty());
  EXPECT_EQ(state.pushes, state.pops);
}

TEST_F(FakeDriverLaunch, HostAndForeignDevicePointersNeverReachALaunch) {
  auto kernel = buildFakeFlashKernel("fake_flash_pointers");
  FlashArgs args = decodeArgs(0);
  args.splits = 1;
  std::vector<unsigned char> hostMask(2 * 1000);
  args.keep.data = hostMask.data(); // a CPU bool mask
  Status s = kernel->launch(args, nullptr, Device::primary(0));
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("'keep' is not GPU memory"), std::string::npos)
      << s.message();

  args.keep.data = reinterpret_cast<void *>(kPinnedBase);
  s = kernel->launch(args, nullptr, Device::primary(0));
  EXPECT_NE(s.message().find("'keep' is pinned host memory"), std::string::npos)
      << s.message();

  args = decodeArgs(0);
  args.splits = 1;
  args.v.data = deviceMemory(1, 1 << 22);
  s = kernel->launch(args, nullptr, Device::primary(0));
  EXPECT_NE(s.message().find("'v' is on device 1 but the launch runs on device 0"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(state.launches.empty());
}

TEST_F(FakeDriverLaunch, SplitLaunchesUseTheCallersWorkspaceAndNeverAllocate) {
  auto kernel = buildFakeFlashKernel("fake_flash_workspace");
  FlashArgs args = decodeArgs(0);
  state.stack.push_back(primary(0));
  // 2 x 8 query rows in 32 blocks on 132 SMs: the heuristic splits.
  auto splits = kernel->splitsFor(args);
  ASSERT_TRUE(splits.isOk());
  EXPECT_GT(*splits, 1);
  auto bytes = kernel->workspaceBytes(args);
  ASSERT_TRUE(bytes.isOk()) << bytes.status().toString();
  const size_t rows = 2 * 8 * 1;
  EXPECT_EQ(*bytes, sizeof(float) * *splits * rows * (128 + 1));

  int allocations = state.allocations, synchronizations = state.synchronizations;
  Status s = kernel->launch(args);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("needs " + std::to_string(*bytes) + " bytes of workspace"),
            std::string::npos)
      << s.message();
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(0, 1 << 29));
  args.workspaceBytes = *bytes - 1;
  EXPECT_FALSE(kernel->launch(args).isOk());
  args.workspaceBytes = *bytes;
  s = kernel->launch(args);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(state.launches.size(), 2u); // the splits, then their merge
  EXPECT_EQ(state.launches[0].params.schedule.splits, *splits);
  EXPECT_EQ(reinterpret_cast<DevicePtr>(state.launches[0].params.partial_o),
            args.workspace);
  EXPECT_EQ(state.functionNames[state.launches[1].function],
            "fake_flash_workspace_combine");
  EXPECT_EQ(state.allocations, allocations);
  EXPECT_EQ(state.synchronizations, synchronizations);

  // A workspace on another device is refused like any operand.
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(1, 1 << 29));
  s = kernel->launch(args);
  EXPECT_NE(s.message().find("'workspace' is on device 1"), std::string::npos)
      << s.message();
}

/// Prefill operands, 2 x 8 query heads (GQA 8/2) x `keys` queries and keys
/// of head dim 128 (more work tiles than SMs from 2048 keys), with k read
/// back to front: a negative stride, which TMA cannot take, when
/// `reversedK`.
FlashArgs prefillArgs(int keys, bool reversedK) {
  FlashArgs a;
  a.batch = 2;
  a.seqQ = a.seqKV = keys;
  int64_t qShape[4] = {2, 8, keys, 128}, kvShape[4] = {2, 2, keys, 128};
  a.q = TensorArg::contiguous(deviceMemory(0, 0), qShape);
  a.k = TensorArg::contiguous(deviceMemory(0, 1 << 24), kvShape);
  a.v = TensorArg::contiguous(deviceMemory(0, 1 << 27), kvShape);
  a.o = TensorArg::contiguous(deviceMemory(0, 1 << 29), qShape);
  if (reversedK) {
    a.k.data = deviceMemory(0, (1 << 24) + size_t(keys - 1) * 128 * 2);
    a.k.strides[2] = -128;
  }
  a.splits = 1;
  return a;
}

TEST_F(FakeDriverLaunch, CausalPersistentLaunchesDrawTilesFromAZeroedCounter) {
  // A causal sm90ws kernel: one block per SM, TMA maps as second argument.
  auto kernel = buildFakeFlashKernel("fake_flash_dynamic", [](KernelSpec &spec) {
    persistentTiles(spec);
    spec.causal = true;
  });
  state.stack.push_back(primary(0));
  // Causal prefill, 2 x 8 heads x 4096 / 128 query blocks = 512 work tiles
  // of different lengths for 132 blocks: a counter balances them.
  FlashArgs args = prefillArgs(4096, /*reversedK=*/false);
  auto bytes = kernel->workspaceBytes(args);
  ASSERT_TRUE(bytes.isOk()) << bytes.status().toString();
  EXPECT_EQ(*bytes, sizeof(int));

  // Without the workspace (a caller of an older release): static order.
  CUstream stream = reinterpret_cast<CUstream>(uintptr_t(0x77));
  ASSERT_TRUE(kernel->launch(args, stream).isOk());
  ASSERT_EQ(state.launches.size(), 1u);
  EXPECT_EQ(state.launches[0].params.tile_counter, nullptr);
  EXPECT_EQ(state.launches[0].grid[0], 132u);
  EXPECT_TRUE(state.memsets.empty());

  // With it: the counter is zeroed on the launch's stream, before it.
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(0, (1 << 29) + (1 << 28)));
  args.workspaceBytes = *bytes;
  ASSERT_TRUE(kernel->launch(args, stream).isOk());
  ASSERT_EQ(state.launches.size(), 2u);
  EXPECT_EQ(reinterpret_cast<DevicePtr>(state.launches[1].params.tile_counter),
            args.workspace);
  ASSERT_EQ(state.memsets.size(), 1u);
  EXPECT_EQ(state.memsets[0].dst, static_cast<CUdeviceptr>(args.workspace));
  EXPECT_EQ(state.memsets[0].value, 0u);
  EXPECT_EQ(state.memsets[0].count, 1u);
  EXPECT_EQ(state.memsets[0].stream, stream);
  EXPECT_EQ(state.memsets[0].launchesBefore, 1u);

  // One tile per block: nothing to balance, no workspace.
  bytes = kernel->workspaceBytes(prefillArgs(512, /*reversedK=*/false));
  ASSERT_TRUE(bytes.isOk());
  EXPECT_EQ(*bytes, 0u);
}

TEST_F(FakeDriverLaunch, AnOutputTmaCannotStoreIsStoredByTheThreads) {
  // The persistent kernel stores its output by TMA when o's map encodes;
  // strides TMA rejects leave each thread storing its accumulators, and
  // packed decode rows (rows of several heads) never use the map.
  auto kernel = buildFakeFlashKernel("fake_flash_ws_output", [](KernelSpec &spec) {
    persistentTiles(spec);
  });
  state.stack.push_back(primary(0));
  FlashArgs args = prefillArgs(1024, /*reversedK=*/false);
  ASSERT_TRUE(kernel->launch(args).isOk());
  state.rejectedMapAddress = args.o.data;
  ASSERT_TRUE(kernel->launch(args).isOk());
  state.rejectedMapAddress = nullptr;
  ASSERT_EQ(state.launches.size(), 2u);
  EXPECT_EQ(state.launches[0].stagesOutput, 1);
  EXPECT_EQ(state.launches[1].stagesOutput, 0);

  auto packed = buildFakeFlashKernel("fake_flash_ws_packed", [](KernelSpec &spec) {
    persistentTiles(spec);
    spec.packGroup = 4;
  });
  args.seqQ = 1;
  int64_t qShape[4] = {2, 8, 1, 128};
  args.q = TensorArg::contiguous(deviceMemory(0, 0), qShape);
  args.o = TensorArg::contiguous(deviceMemory(0, 1 << 28), qShape);
  ASSERT_TRUE(packed->launch(args).isOk());
  ASSERT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.launches[2].stagesOutput, 0);
}

TEST_F(FakeDriverLaunch, LongKeyLengthsRunTheLongKeysKernel) {
  auto shortKeys = buildFakeFlashKernel("fake_short_keys");
  auto longKeys = buildFakeFlashKernel("fake_long_keys", [](KernelSpec &spec) {
    spec.blockN = 128;
  });
  shortKeys->setLongKeysKernel(longKeys->primaryShared(), 8192);
  state.stack.push_back(primary(0));
  FlashArgs args = decodeArgs(0);
  args.splits = 1;
  int loads = state.loads;
  ASSERT_TRUE(shortKeys->load().isOk());
  EXPECT_EQ(state.loads, loads + 2); // both modules, before any capture
  ASSERT_TRUE(shortKeys->launch(args).isOk());
  // 8192 keys still run the first kernel, 8193 the second.
  auto launchWithKeys = [&](int keys) {
    int64_t kvShape[4] = {2, 2, keys, 128};
    args.seqKV = keys;
    args.k = TensorArg::contiguous(deviceMemory(0, 1 << 16), kvShape);
    args.v = TensorArg::contiguous(deviceMemory(0, 1 << 26), kvShape);
    return shortKeys->launch(args);
  };
  ASSERT_TRUE(launchWithKeys(8192).isOk());
  auto picked = shortKeys->kernelFor(args);
  ASSERT_TRUE(picked.isOk());
  EXPECT_EQ(*picked, &shortKeys->primary());
  ASSERT_TRUE(launchWithKeys(8193).isOk());
  picked = shortKeys->kernelFor(args);
  ASSERT_TRUE(picked.isOk());
  EXPECT_EQ(*picked, shortKeys->longKeysKernel());
  ASSERT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.functionNames[state.launches[0].function], "fake_short_keys");
  EXPECT_EQ(state.functionNames[state.launches[1].function], "fake_short_keys");
  EXPECT_EQ(state.functionNames[state.launches[2].function], "fake_long_keys");
  EXPECT_EQ(state.loads, loads + 2);
}

/// A persistent (TMA) kernel, causal, GQA 8/2, head dim 128, with a
/// cp.async kernel beside it whose builds are counted.
struct TmaWithFallback {
  std::shared_ptr<KernelGroup> tma;
  int builds = 0;
  explicit TmaWithFallback(const std::string &name, bool fallback = true) {
    tma = buildFakeFlashKernel(name, [](KernelSpec &spec) {
      spec.variant = "sm90ws";
      spec.threads = 384;
      spec.blockM = 128;
      spec.numWarps = 12;
      spec.causal = true;
    });
    if (fallback)
      tma->setCpAsyncFallback(name + "_cpasync", [this, name] {
        ++builds;
        return Result<std::shared_ptr<Kernel>>(
            buildFakeFlashKernel(name + "_cpasync")->primaryShared());
      });
  }
};

std::vector<std::string> *logged = nullptr;
void collectLog(const char *message, void *) { logged->push_back(message); }

TEST_F(FakeDriverLaunch, StridesTmaRejectsRunTheCpAsyncKernelBuiltOnce) {
  TmaWithFallback f("fake_tma");
  std::vector<std::string> messages;
  logged = &messages;
  setLogHandler(collectLog, nullptr);
  state.stack.push_back(primary(0));

  // Operands TMA reads: the persistent kernel, nothing else built.
  FlashArgs args = prefillArgs(4096, false);
  ASSERT_TRUE(f.tma->launch(args).isOk());
  EXPECT_EQ(f.builds, 0);
  EXPECT_EQ(f.tma->cpAsyncFallback(), nullptr);
  auto tmaBytes = f.tma->workspaceBytes(args);
  ASSERT_TRUE(tmaBytes.isOk());
  EXPECT_EQ(*tmaBytes, sizeof(int)); // the dynamic scheduler's counter

  // k back to front: the cp.async kernel, built at the first such call,
  // sizes the workspace and runs the launches, and the log says why once.
  args = prefillArgs(4096, true);
  auto bytes = f.tma->workspaceBytes(args);
  ASSERT_TRUE(bytes.isOk()) << bytes.status().toString();
  EXPECT_EQ(*bytes, 0u); // one block per tile: no counter
  for (int i = 0; i < 2; ++i) {
    Status s = f.tma->launch(args);
    ASSERT_TRUE(s.isOk()) << s.toString();
  }
  EXPECT_EQ(f.builds, 1);
  ASSERT_NE(f.tma->cpAsyncFallback(), nullptr);
  EXPECT_EQ(f.tma->cpAsyncFallback()->spec().name, "fake_tma_cpasync");
  ASSERT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.functionNames[state.launches[0].function], "fake_tma");
  EXPECT_EQ(state.functionNames[state.launches[1].function], "fake_tma_cpasync");
  EXPECT_EQ(state.launches[1].params.k_strides[2], -128);
  EXPECT_EQ(state.launches[1].grid[0], 2u * 8 * 4096 / 64); // its tiles
  std::vector<std::string> remarks;
  for (const std::string &m : messages)
    if (m.find("remark:") != std::string::npos)
      remarks.push_back(m);
  ASSERT_EQ(remarks.size(), 1u);
  EXPECT_NE(remarks[0].find("kernel fake_tma reads q, k and v by TMA, and k's "
                            "row stride is -256 bytes, where TMA needs a "
                            "multiple of 16 bytes"),
            std::string::npos)
      << remarks[0];
  EXPECT_NE(remarks[0].find("running the cp.async kernel fake_tma_cpasync "
                            "instead"),
            std::string::npos)
      << remarks[0];

  // The same operands again: TMA.
  ASSERT_TRUE(f.tma->launch(prefillArgs(4096, false)).isOk());
  EXPECT_EQ(state.functionNames[state.launches.back().function], "fake_tma");
  setLogHandler(nullptr, nullptr);
}

TEST_F(FakeDriverLaunch, PackedDecodeRowsLoadQAsABoxOfTokensByHeads) {
  // 16 tokens x the 4 query heads of each K/V head: the persistent kernel's
  // q map is (head dim, 4 heads, tokens, K/V heads, batch), a box of 128 /
  // 4 tokens by the 4 heads, token-major as the packed rows.
  auto packed = buildFakeFlashKernel("fake_ws_packed4", [](KernelSpec &spec) {
    persistentTiles(spec);
    spec.packGroup = 4;
  });
  ASSERT_NE(packed, nullptr);
  packed->setCpAsyncFallback("fake_packed4_cpasync", [] {
    return Result<std::shared_ptr<Kernel>>(
        buildFakeFlashKernel("fake_packed4_cpasync")->primaryShared());
  });
  state.stack.push_back(primary(0));
  FlashArgs args = decodeArgs(0);
  args.seqQ = 16;
  int64_t qShape[4] = {2, 8, 16, 128};
  args.q = TensorArg::contiguous(args.q.data, qShape);
  args.o = TensorArg::contiguous(args.o.data, qShape);
  args.splits = 1;
  Status s = packed->launch(args);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(state.functionNames[state.launches.back().function],
            "fake_ws_packed4");
  ASSERT_FALSE(state.tensorMaps.empty());
  const FakeState::TensorMapEncode &q = state.tensorMaps.front();
  EXPECT_EQ(q.address, args.q.data);
  ASSERT_EQ(q.rank, 5u);
  EXPECT_EQ(q.dims, (std::vector<uint64_t>{128, 4, 16, 2, 2}));
  // Bytes: a head, a token, a K/V head's 4 heads, a batch entry.
  EXPECT_EQ(q.strideBytes,
            (std::vector<uint64_t>{16 * 256, 256, 4 * 16 * 256, 8 * 16 * 256}));
  EXPECT_EQ(q.box, (std::vector<uint32_t>{64, 4, 32, 1, 1}));
  EXPECT_EQ(state.launches.back().params.schedule.heads, 2); // K/V heads
  // No staged output for packed rows: the threads store them.
  EXPECT_EQ(state.launches.back().stagesOutput, 0);

  // Query heads back to front, a stride TMA cannot step: the cp.async
  // kernel, and the remark names the packed view's stride.
  std::vector<std::string> messages;
  logged = &messages;
  setLogHandler(collectLog, nullptr);
  args.q.data = static_cast<const char *>(args.q.data) + 7 * 16 * 128 * 2;
  args.q.strides[1] = -16 * 128;
  s = packed->launch(args);
  setLogHandler(nullptr, nullptr);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(state.functionNames[state.launches.back().function],
            "fake_packed4_cpasync");
  bool named = false;
  for (const std::string &m : messages)
    named |= m.find("q's head stride is -4096 bytes") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST_F(FakeDriverLaunch, PagedCachesLoadABoxPerPageOrRunTheCpAsyncKernel) {
  // A paged cache of 64 pages of `page` keys, 2 K/V heads, head dim 128
  // (BHSD views: page, head, row): the persistent kernel's k and v maps
  // are the pages as a batch of `page` rows, read in boxes of a page (of a
  // key tile where a page holds several); page sizes whose boxes cannot
  // tile a key tile of 128 run the cp.async kernel, and the remark says why.
  auto paged = buildFakeFlashKernel("fake_ws_paged", [](KernelSpec &spec) {
    persistentTiles(spec);
    spec.blockN = 128;
    spec.paged = true;
    spec.keyPadding = true;
  });
  ASSERT_NE(paged, nullptr);
  paged->setCpAsyncFallback("fake_paged_cpasync", [] {
    return Result<std::shared_ptr<Kernel>>(
        buildFakeFlashKernel("fake_paged_cpasync", [](KernelSpec &spec) {
          spec.paged = true;
          spec.keyPadding = true;
        })->primaryShared());
  });
  state.stack.push_back(primary(0));
  std::vector<std::string> messages;
  logged = &messages;
  setLogHandler(collectLog, nullptr);
  auto launchWithPages = [&](int page) {
    FlashArgs args = decodeArgs(0);
    args.seqKV = 1024 / page * page;
    int64_t cacheShape[4] = {64, 2, page, 128};
    args.k = TensorArg::contiguous(args.k.data, cacheShape);
    args.v = TensorArg::contiguous(args.v.data, cacheShape);
    args.blockTable = reinterpret_cast<const int *>(deviceMemory(0, 1 << 29));
    args.blockTableStride = 1024 / page;
    args.pageSize = page;
    args.numPages = 64;
    args.lengths =
        reinterpret_cast<const int *>(deviceMemory(0, (1 << 29) + 4096));
    args.splits = 1;
    state.tensorMaps.clear();
    return paged->launch(args);
  };
  for (int page : {16, 128, 256}) {
    Status s = launchWithPages(page);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(state.functionNames[state.launches.back().function],
              "fake_ws_paged")
        << page;
    ASSERT_EQ(state.tensorMaps.size(), 4u); // q, k, v and the output
    for (int i : {1, 2}) {
      const FakeState::TensorMapEncode &kv = state.tensorMaps[i];
      EXPECT_EQ(kv.dims, (std::vector<uint64_t>{128, uint64_t(page), 2, 64}));
      EXPECT_EQ(kv.strideBytes,
                (std::vector<uint64_t>{256, uint64_t(page) * 256,
                                       2 * uint64_t(page) * 256}));
      EXPECT_EQ(kv.box,
                (std::vector<uint32_t>{64, uint32_t(std::min(page, 128)), 1, 1}));
    }
  }
  EXPECT_EQ(paged->cpAsyncFallback(), nullptr);
  for (int page : {4, 24}) {
    Status s = launchWithPages(page);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(state.functionNames[state.launches.back().function],
              "fake_paged_cpasync")
        << page;
  }
  setLogHandler(nullptr, nullptr);
  bool named = false;
  for (const std::string &m : messages)
    named |= m.find("pages of 4 keys (TMA reads a paged cache in boxes of a "
                    "page") != std::string::npos;
  EXPECT_TRUE(named) << ::testing::PrintToString(messages);
}

TEST_F(FakeDriverLaunch, TheLongKeysKernelSharesTheCpAsyncKernel) {
  TmaWithFallback f("fake_tma_short");
  auto longKeys = buildFakeFlashKernel("fake_tma_long", [](KernelSpec &spec) {
    spec.variant = "sm90ws";
    spec.threads = 384;
    spec.blockM = 128;
    spec.blockN = 176;
    spec.numWarps = 12;
    spec.causal = true;
  });
  f.tma->setLongKeysKernel(longKeys->primaryShared(), 8192);
  state.stack.push_back(primary(0));
  ASSERT_TRUE(f.tma->launch(prefillArgs(1024, true)).isOk());
  ASSERT_TRUE(f.tma->launch(prefillArgs(8200, true)).isOk());
  ASSERT_TRUE(f.tma->launch(prefillArgs(8200, false)).isOk());
  EXPECT_EQ(f.builds, 1);
  ASSERT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.functionNames[state.launches[0].function], "fake_tma_short_cpasync");
  EXPECT_EQ(state.functionNames[state.launches[1].function], "fake_tma_short_cpasync");
  EXPECT_EQ(state.functionNames[state.launches[2].function], "fake_tma_long");
}

TEST_F(FakeDriverLaunch, ViewsTheDriverRefusesRunTheCpAsyncKernel) {
  // Strides within the documented rules that cuTensorMapEncodeTiled still
  // refuses: the driver's word decides.
  TmaWithFallback f("fake_tma_refused");
  state.stack.push_back(primary(0));
  state.refuseTensorMaps = true;
  Status s = f.tma->launch(prefillArgs(4096, false));
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(f.builds, 1);
  EXPECT_EQ(state.functionNames[state.launches.back().function],
            "fake_tma_refused_cpasync");
}

TEST_F(FakeDriverLaunch, StridesNoKernelCanReadAreAClearError) {
  state.stack.push_back(primary(0));
  // Without a cp.async kernel: the launch names the operand and stride.
  TmaWithFallback alone("fake_tma_alone", /*fallback=*/false);
  Status s = alone.tma->launch(prefillArgs(4096, true));
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("k's row stride is -256 bytes"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("no cp.async kernel was compiled beside it"),
            std::string::npos)
      << s.message();

  // A cp.async kernel that does not build: the error says so, every time,
  // and the build is not retried.
  TmaWithFallback broken("fake_tma_broken", /*fallback=*/false);
  int builds = 0;
  broken.tma->setCpAsyncFallback("fake_tma_broken_cpasync", [&builds] {
    ++builds;
    return Result<std::shared_ptr<Kernel>>(
        Status(StatusCode::CompileError, "nvrtc: out of registers"));
  });
  for (int i = 0; i < 2; ++i) {
    s = broken.tma->launch(prefillArgs(4096, true));
    EXPECT_EQ(s.code(), StatusCode::CompileError);
    EXPECT_NE(s.message().find("building the cp.async kernel "
                               "fake_tma_broken_cpasync that would run it "
                               "instead failed: nvrtc: out of registers"),
              std::string::npos)
        << s.message();
  }
  EXPECT_EQ(builds, 1);

  // Strides neither kernel reads (not multiples of 8 elements) are refused
  // before either is asked.
  TmaWithFallback f("fake_tma_odd");
  FlashArgs args = prefillArgs(4096, false);
  args.k.strides[2] = 130;
  s = f.tma->launch(args);
  EXPECT_NE(s.message().find("'k' stride of dimension 2 is 130"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(f.builds, 0);
  EXPECT_TRUE(state.launches.empty());
}

TEST_F(FakeDriverLaunch, ACpAsyncKernelIsNotLoadedDuringCapture) {
  // Built (NVRTC is no stream operation) but not loaded while the stream
  // captures; once loaded with the TMA kernel, capture works.
  TmaWithFallback f("fake_tma_capture");
  state.stack.push_back(primary(0));
  state.capturing = true;
  FlashArgs args = prefillArgs(4096, true);
  Status s = f.tma->launch(args);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("hands this launch to its cp.async kernel "
                             "fake_tma_capture_cpasync (k's row stride is "
                             "-256 bytes"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("is capturing a CUDA graph"), std::string::npos)
      << s.message();
  EXPECT_EQ(state.loads, 0);
  EXPECT_EQ(f.builds, 1);

  state.capturing = false;
  ASSERT_TRUE(f.tma->load().isOk());
  EXPECT_EQ(state.loads, 2); // the TMA kernel and its cp.async kernel
  state.capturing = true;
  s = f.tma->launch(args);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(state.functionNames[state.launches.back().function],
            "fake_tma_capture_cpasync");
  EXPECT_EQ(f.builds, 1);
}

TEST_F(FakeDriverLaunch, NothingIsLoadedWhileTheStreamCaptures) {
  auto kernel = buildFakeFlashKernel("fake_flash_capture");
  FlashArgs args = decodeArgs(0);
  args.splits = 1;
  state.stack.push_back(primary(0));
  state.capturing = true;
  Status s = kernel->launch(args);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("is capturing a CUDA graph"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("KernelGroup::load"), std::string::npos);
  EXPECT_EQ(state.loads, 0);
  auto bytes = kernel->workspaceBytes(args);
  EXPECT_FALSE(bytes.isOk());

  state.capturing = false;
  ASSERT_TRUE(kernel->load().isOk()); // before capturing
  state.capturing = true;
  s = kernel->launch(args);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(state.loads, 1);
  EXPECT_EQ(state.launches.size(), 1u);
}

TEST_F(FakeDriverLaunch, ModulesAreUnloadedInEveryContext) {
  {
    auto kernel = buildFakeFlashKernel("fake_flash_unload");
    ASSERT_TRUE(kernel->load(Device::primary(0)).isOk());
    ASSERT_TRUE(kernel->load(Device::primary(1)).isOk());
    ASSERT_TRUE(kernel->load(Device::primary(1)).isOk()); // once per context
    EXPECT_EQ(state.loads, 2);
  }
  EXPECT_EQ(state.unloads, 2);
  EXPECT_TRUE(state.stack.empty());
}

TEST_F(FakeDriverLaunch, BackwardLaunchesFollowTheForwardsRules) {
  auto kernel = buildFakeBackwardKernel("fake_bwd_rules");
  BackwardArgs args = backwardArgs(1);
  auto bytes = kernel->workspaceBytes(args); // no driver call
  ASSERT_TRUE(bytes.isOk()) << bytes.status().toString();
  EXPECT_EQ(state.loads, 0);
  state.stack.push_back(primary(0)); // the caller works on device 0

  // The workspace is the caller's, on the launch's device.
  Status s = kernel->launch(args, nullptr, Device::primary(1));
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("the backward needs a workspace of " +
                             std::to_string(*bytes) + " bytes"),
            std::string::npos)
      << s.message();
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(0, 1 << 28));
  args.workspaceBytes = *bytes;
  s = kernel->launch(args, nullptr, Device::primary(1));
  EXPECT_NE(s.message().find("'workspace' is on device 0 but the launch runs on "
                             "device 1"),
            std::string::npos)
      << s.message();
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(1, 1 << 28));
  std::vector<float> hostGradient(8);
  BackwardArgs host = args;
  host.gradQ.data = hostGradient.data();
  s = kernel->launch(host, nullptr, Device::primary(1));
  EXPECT_NE(s.message().find("'gradQ' is not GPU memory"), std::string::npos)
      << s.message();
  EXPECT_TRUE(state.launches.empty());

  int allocations = state.allocations, synchronizations = state.synchronizations;
  s = kernel->launch(args, nullptr, Device::primary(1));
  ASSERT_TRUE(s.isOk()) << s.toString();
  // D (and a zeroed dbias), the K/V-stationary kernel, the dQ conversion: in
  // device 1's context, the caller's restored after.
  ASSERT_EQ(state.launches.size(), 3u);
  const char *order[] = {"fake_bwd_rules_pre", "fake_bwd_rules",
                         "fake_bwd_rules_convert"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(state.functionNames[state.launches[i].function], order[i]);
    EXPECT_EQ(state.launches[i].context, primary(1));
  }
  EXPECT_EQ(state.stack, std::vector<CUcontext>{primary(0)});
  EXPECT_EQ(state.allocations, allocations);
  EXPECT_EQ(state.synchronizations, synchronizations);
  // A block per 64 keys of each (K/V head, batch).
  const FakeState::Launch &main = state.launches[1];
  EXPECT_EQ(main.grid[0], 5u);
  EXPECT_EQ(main.grid[1], 2u);
  EXPECT_EQ(main.grid[2], 2u);
  EXPECT_EQ(main.bwdParams.heads_q, 8);
  EXPECT_EQ(reinterpret_cast<DevicePtr>(main.bwdParams.delta), args.workspace);
  EXPECT_NE(main.bwdParams.dq_accum, nullptr);
  // The dQ sum zeroed first, on the launch's stream: whole 64-row tiles of
  // each of the 16 (batch, head) pairs (300 rows -> 320).
  ASSERT_EQ(state.memsets.size(), 1u);
  EXPECT_EQ(state.memsets[0].launchesBefore, 0u);
  EXPECT_EQ(state.memsets[0].dst,
            reinterpret_cast<CUdeviceptr>(main.bwdParams.dq_accum));
  EXPECT_EQ(state.memsets[0].value, 0u);
  EXPECT_EQ(state.memsets[0].count, 2u * 8 * 320 * 64);
  EXPECT_EQ(state.memsets[0].stream, main.stream);
  // _pre: 4 rows of head dim 64 per warp (8 lanes of 16 bytes a row), 16
  // per block; _convert: a warp per row (more than the sum's 512-float
  // blocks need).
  EXPECT_EQ(state.launches[0].grid[0], 2u * 8 * 300 / 16);
  EXPECT_EQ(state.launches[2].grid[0], 2u * 8 * 300 / 4);

  // Deterministic: the Q-stationary dQ kernel instead of the atomic sum, a
  // block per 64 queries of each (query head, batch); no sum to zero.
  state.launches.clear();
  state.memsets.clear();
  args.deterministic = true;
  args.workspaceBytes = *kernel->workspaceBytes(args);
  ASSERT_TRUE(kernel->launch(args, nullptr, Device::primary(1)).isOk());
  ASSERT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(state.functionNames[state.launches[2].function], "fake_bwd_rules_dq");
  EXPECT_EQ(state.launches[2].grid[0], 5u);
  EXPECT_EQ(state.launches[2].grid[1], 8u);
  EXPECT_EQ(state.launches[2].grid[2], 2u);
  EXPECT_EQ(state.launches[2].bwdParams.dq_accum, nullptr);
  EXPECT_TRUE(state.memsets.empty());

  // The sm80 variant's dQ kernel was faster than its atomics: it runs in
  // every launch, and no f32 sum needs converting.
  auto sm80 = buildFakeBackwardKernel(
      "fake_bwd_sm80", [](KernelSpec &spec) { spec.variant = "sm80"; });
  state.launches.clear();
  args.deterministic = false;
  args.workspaceBytes = *sm80->workspaceBytes(args);
  ASSERT_TRUE(sm80->launch(args, nullptr, Device::primary(1)).isOk());
  ASSERT_EQ(state.launches.size(), 3u);
  const char *sm80Order[] = {"fake_bwd_sm80_pre", "fake_bwd_sm80",
                             "fake_bwd_sm80_dq"};
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(state.functionNames[state.launches[i].function], sm80Order[i]);
  EXPECT_EQ(state.launches[1].bwdParams.dq_accum, nullptr);
}

TEST_F(FakeDriverLaunch, ABackwardSpecIsCheckedBeforeItIsDividedBy) {
  auto kernel = buildFakeBackwardKernel(
      "fake_bwd_spec", [](KernelSpec &spec) { spec.headsKV = 3; });
  BackwardArgs args = backwardArgs(0);
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(0, 1 << 28));
  args.workspaceBytes = *kernel->workspaceBytes(args);
  Status s = kernel->launch(args);
  EXPECT_NE(s.message().find("kernel fake_bwd_spec has an invalid spec: heads 8/3"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(state.launches.empty());
}

TEST_F(FakeDriverLaunch, BackwardIsNotLoadedWhileTheStreamCaptures) {
  auto kernel = buildFakeBackwardKernel("fake_bwd_capture");
  BackwardArgs args = backwardArgs(0);
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(0, 1 << 28));
  args.workspaceBytes = *kernel->workspaceBytes(args);
  state.stack.push_back(primary(0));
  state.capturing = true;
  Status s = kernel->launch(args);
  EXPECT_NE(s.message().find("is capturing a CUDA graph"), std::string::npos)
      << s.message();
  EXPECT_EQ(state.loads, 0);
  state.capturing = false;
  ASSERT_TRUE(kernel->load().isOk());
  state.capturing = true;
  ASSERT_TRUE(kernel->launch(args).isOk());
  EXPECT_EQ(state.launches.size(), 3u);
}

// A window bound past every key changes no mask; the kernels add it to a
// query's diagonal, so both directions clamp it to seq_q + seq_kv first.
TEST_F(FakeDriverLaunch, WindowBoundsPastEveryKeyAreClampedInBothDirections) {
  auto backward = buildFakeBackwardKernel("fake_bwd_window", [](KernelSpec &spec) {
    spec.window = true;
    spec.windowLeft = 2147483647;
    spec.windowRight = 17;
  });
  BackwardArgs args = backwardArgs(0);
  args.workspace = reinterpret_cast<DevicePtr>(deviceMemory(0, 1 << 28));
  args.workspaceBytes = *backward->workspaceBytes(args);
  state.stack.push_back(primary(0));
  ASSERT_TRUE(backward->launch(args).isOk());
  ASSERT_EQ(state.launches.size(), 3u);
  for (const FakeState::Launch &launch : state.launches) {
    EXPECT_EQ(launch.bwdParams.window_left, 600); // 300 queries + 300 keys
    EXPECT_EQ(launch.bwdParams.window_right, 17);
  }

  state.launches.clear();
  auto forward = buildFakeFlashKernel("fake_fwd_window", [](KernelSpec &spec) {
    spec.window = true;
    spec.windowLeft = 17;
    spec.windowRight = 2147483647;
  });
  FlashArgs decode = decodeArgs(0);
  decode.splits = 1;
  ASSERT_TRUE(forward->launch(decode).isOk());
  ASSERT_EQ(state.launches.size(), 1u);
  EXPECT_EQ(state.launches[0].params.window_left, 17);
  EXPECT_EQ(state.launches[0].params.window_right, 1001); // 1 query + 1000 keys
}

// The host side of a launch (validation, context, pointer checks, the
// split choice, the arguments) against a driver that does nothing: what
// attn adds to each call beyond cuLaunchKernel itself.
TEST_F(FakeDriverLaunch, HostTimePerLaunch) {
  auto kernel = buildFakeFlashKernel("fake_flash_timing");
  FlashArgs args = decodeArgs(0);
  args.splits = 1;
  state.stack.push_back(primary(0));
  ASSERT_TRUE(kernel->launch(args).isOk());
  constexpr int kLaunches = 100000, kBatch = 1000;
  // The fake's records of a batch of launches, reused: 100000 of them
  // would time the page faults of their memory, not the launches.
  state.launches.reserve(kBatch + 1);
  size_t recorded = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kLaunches; ++i) {
    (void)kernel->launch(args);
    if (state.launches.size() > kBatch) {
      recorded += state.launches.size();
      state.launches.clear();
    }
  }
  double us = std::chrono::duration<double, std::micro>(
                  std::chrono::steady_clock::now() - start)
                  .count() /
              kLaunches;
  std::printf("host time per launch (fake driver): %.3f us\n", us);
  EXPECT_EQ(recorded + state.launches.size(), size_t(kLaunches) + 1);
  EXPECT_EQ(state.pushes, 0);
  // Generous (a shared CI machine): about 0.2 us here.
  EXPECT_LT(us, 5.0);
}

} // namespace
