//===- attn-run.cpp - Compile, run, check and time attention graphs -------===//
//
// attn-run FILE.mlir compiles every attention chain of the file's function
// (fuse, configure, NVRTC), or with --unfused every graph op as its own
// kernel; a file of attn.kernel ops (attn-opt --attn-lower-unfused) runs as
// it is. Without a GPU it prints the compile report and exits 0. With one it
// runs the kernels on seeded random inputs (or .npy files), and on request
// checks them against the float64 CPU reference of the original graph
// (--check), times them with CUDA events (--bench) and prints a per-kernel
// profile (--profile).
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Runtime/Nvrtc.h"
#include "attn/Reference/Reference.h"
#include "attn/Runtime/Half.h"
#include "attn/attn.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <map>
#include <random>

using namespace llvm;
using mlir::attn::reference::HostTensor;

namespace {

cl::OptionCategory category("attn-run options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> archOption(
    "arch",
    cl::desc("Target arch (sm_80, sm_86, sm_89, sm_90a); default: the GPU's, "
             "or sm_90a without one"),
    cl::cat(category));
cl::opt<bool> checkOption("check",
                          cl::desc("Compare every output with the float64 CPU "
                                   "reference of the original graph"),
                          cl::cat(category));
cl::opt<bool> benchOption("bench",
                          cl::desc("Time each kernel with CUDA events (median)"),
                          cl::cat(category));
cl::opt<bool> profileOption(
    "profile",
    cl::desc("Per kernel: grid, block, registers, shared memory, occupancy, "
             "time, TFLOP/s and GB/s against the device's peak; for fused "
             "kernels, the key tiles computed, skipped and masked"),
    cl::cat(category));
cl::opt<unsigned> seedOption("seed", cl::desc("Random input seed"),
                             cl::init(1), cl::cat(category));
cl::opt<std::string> inputsOption(
    "inputs",
    cl::desc("Comma-separated .npy files, one per function argument, in "
             "BHSD order (f32, f16, f64, i32 or bool arrays)"),
    cl::cat(category));
cl::opt<unsigned> itersOption("iters", cl::desc("Timed runs for --bench"),
                              cl::init(30), cl::cat(category));
cl::opt<unsigned> warmupOption("warmup", cl::desc("Untimed runs first"),
                               cl::init(5), cl::cat(category));
cl::opt<unsigned> slicesOption(
    "check-slices",
    cl::desc("(batch, head) slices the reference computes (0: all)"),
    cl::init(16), cl::cat(category));
cl::opt<double> toleranceOption(
    "tolerance", cl::desc("Largest relative L2 error --check accepts"),
    cl::init(1e-2), cl::cat(category));
cl::opt<std::string> layoutOption(
    "layout",
    cl::desc("Memory layout of q, k, v and the output: bhsd (contiguous) or "
             "bshd (passed with permuted strides, no copy)"),
    cl::init("bhsd"), cl::cat(category));
cl::opt<std::string> cacheDirOption(
    "cache-dir", cl::desc("Kernel cache directory (default: $ATTN_CACHE_DIR "
                          "or ~/.cache/attn)"),
    cl::cat(category));
cl::opt<bool> noDiskCacheOption("no-disk-cache",
                                cl::desc("Keep compiled kernels in memory only"),
                                cl::cat(category));
cl::opt<std::string> variantOption(
    "variant",
    cl::desc("Kernel variant: sm80 (mma.sync) or sm90 (wgmma, sm_90a); "
             "default: the cost model's"),
    cl::cat(category));
cl::opt<int> blockMOption("block-m",
                          cl::desc("Query rows per tile (0: the model's)"),
                          cl::init(0), cl::cat(category));
cl::opt<int> blockNOption("block-n", cl::desc("Keys per tile (0: the model's)"),
                          cl::init(0), cl::cat(category));
cl::opt<int> numWarpsOption("num-warps",
                            cl::desc("Warps per block (0: the model's)"),
                            cl::init(0), cl::cat(category));
cl::opt<int> stagesOption("stages",
                          cl::desc("K/V pipeline stages (0: the model's)"),
                          cl::init(0), cl::cat(category));
cl::opt<int> splitsOption(
    "splits",
    cl::desc("Split-KV blocks per query block of fused kernels (0: the "
             "runtime's choice, 1: none)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> unfusedOption(
    "unfused",
    cl::desc("Do not fuse: run every graph op as its own kernel "
             "(--attn-lower-unfused, the shape of PyTorch's math backend)"),
    cl::cat(category));
cl::opt<bool> backwardOption(
    "backward",
    cl::desc("Derive the backward (--attn-derive-backward): the function "
             "becomes a training step taking the output's gradient and "
             "returning dq, dk, dv after its results; --check compares them "
             "with the reference's backward"),
    cl::cat(category));
cl::opt<bool> biasGradOption(
    "bias-grad", cl::desc("With --backward: the bias gradient too"),
    cl::cat(category));
cl::opt<bool> deterministicOption(
    "deterministic",
    cl::desc("Backward kernels without atomics (bitwise identical results "
             "run to run)"),
    cl::cat(category));
cl::opt<bool> printIR("print-ir", cl::desc("Print the IR after the pipeline"),
                      cl::cat(category));

int fail(const std::string &message) {
  std::fprintf(stderr, "attn-run: error: %s\n", message.c_str());
  return 1;
}

//===----------------------------------------------------------------------===//
// Host tensors
//===----------------------------------------------------------------------===//

enum class Kind { F16, BF16, F32, I32, Bool };

FailureOr<Kind> kindOf(mlir::Type type) {
  if (type.isF16())
    return Kind::F16;
  if (type.isBF16())
    return Kind::BF16;
  if (type.isF32())
    return Kind::F32;
  if (type.isInteger(32))
    return Kind::I32;
  if (type.isInteger(1))
    return Kind::Bool;
  return failure();
}

int bytesOf(Kind kind) {
  switch (kind) {
  case Kind::F16:
  case Kind::BF16: return 2;
  case Kind::F32:
  case Kind::I32: return 4;
  case Kind::Bool: return 1;
  }
  return 0;
}

/// Rounds a value to what the element type can hold.
double representable(Kind kind, double x) {
  switch (kind) {
  case Kind::F16: return attn::halfToFloat(attn::floatToHalf(float(x)));
  case Kind::BF16: return attn::bf16ToFloat(attn::floatToBf16(float(x)));
  case Kind::F32: return float(x);
  case Kind::I32: return double(int32_t(x));
  case Kind::Bool: return x != 0 ? 1 : 0;
  }
  return x;
}

void encode(Kind kind, double x, unsigned char *dst) {
  switch (kind) {
  case Kind::F16: {
    uint16_t h = attn::floatToHalf(float(x));
    std::memcpy(dst, &h, 2);
    break;
  }
  case Kind::BF16: {
    uint16_t h = attn::floatToBf16(float(x));
    std::memcpy(dst, &h, 2);
    break;
  }
  case Kind::F32: {
    float f = float(x);
    std::memcpy(dst, &f, 4);
    break;
  }
  case Kind::I32: {
    int32_t i = int32_t(x);
    std::memcpy(dst, &i, 4);
    break;
  }
  case Kind::Bool: *dst = x != 0; break;
  }
}

double decode(Kind kind, const unsigned char *src) {
  switch (kind) {
  case Kind::F16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    return attn::halfToFloat(h);
  }
  case Kind::BF16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    return attn::bf16ToFloat(h);
  }
  case Kind::F32: {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  case Kind::I32: {
    int32_t i;
    std::memcpy(&i, src, 4);
    return i;
  }
  case Kind::Bool: return *src ? 1 : 0;
  }
  return 0;
}

/// Reads a .npy file (v1/v2 header, little-endian, C order).
attn::Result<HostTensor> readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  auto bad = [&](const std::string &why) {
    return attn::Status(attn::StatusCode::InvalidArgument, path + ": " + why);
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return bad("not a .npy file");
  size_t headerLength, offset;
  if (bytes[6] == 1) {
    headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    offset = 10;
  } else {
    headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8) |
                   (uint8_t(bytes[10]) << 16) | (size_t(uint8_t(bytes[11])) << 24);
    offset = 12;
  }
  std::string header = bytes.substr(offset, headerLength);
  auto field = [&](const std::string &key) {
    size_t at = header.find("'" + key + "'");
    return at == std::string::npos ? std::string() : header.substr(at);
  };
  std::string descr = field("descr"), order = field("fortran_order"),
              shapeText = field("shape");
  if (order.find("True") < order.find(','))
    return bad("Fortran-ordered arrays are not supported");
  std::map<std::string, std::pair<int, Kind>> kinds = {
      {"<f4", {4, Kind::F32}}, {"<f2", {2, Kind::F16}}, {"<i4", {4, Kind::I32}},
      {"|b1", {1, Kind::Bool}}, {"|u1", {1, Kind::Bool}}};
  bool isF64 = descr.find("<f8") != std::string::npos;
  std::pair<int, Kind> kind = {8, Kind::F32};
  if (!isF64) {
    bool found = false;
    for (auto &[name, k] : kinds)
      if (descr.find(name) != std::string::npos) {
        kind = k;
        found = true;
      }
    if (!found)
      return bad("unsupported dtype in header " + header);
  }
  HostTensor t;
  size_t open = shapeText.find('('), close = shapeText.find(')');
  std::string dims = shapeText.substr(open + 1, close - open - 1);
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    std::string d = dims.substr(pos, comma - pos);
    if (d.find_first_of("0123456789") != std::string::npos)
      t.shape.push_back(std::stoll(d));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  int64_t n = t.numElements();
  const unsigned char *data =
      reinterpret_cast<const unsigned char *>(bytes.data()) + offset + headerLength;
  if (bytes.size() - offset - headerLength < size_t(n) * kind.first)
    return bad("truncated data");
  t.data.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    if (isF64) {
      double d;
      std::memcpy(&d, data + i * 8, 8);
      t.data[i] = d;
    } else {
      t.data[i] = decode(kind.second, data + i * kind.first);
    }
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Device values
//===----------------------------------------------------------------------===//

struct DeviceTensor {
  std::shared_ptr<attn::DeviceBuffer> buffer;
  std::vector<int64_t> shape; // logical (BHSD for rank 4)
  std::vector<int64_t> strides;
  Kind kind;
};

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// BSHD physical order for a logical BHSD shape.
std::vector<int64_t> bshdStrides(const std::vector<int64_t> &s) {
  return {s[1] * s[2] * s[3], s[3], s[1] * s[3], 1};
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Calls f(logicalIndex, physicalOffset) for every element.
template <class F>
void forEachElement(const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &strides, F f) {
  int64_t n = numElements(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += idx[d] * strides[d];
    f(i, offset);
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

attn::Result<DeviceTensor> upload(const HostTensor &t, Kind kind,
                                  std::vector<int64_t> strides) {
  int64_t span = 1;
  for (size_t d = 0; d < t.shape.size(); ++d)
    span += (t.shape[d] - 1) * strides[d];
  std::vector<unsigned char> bytes(span * bytesOf(kind), 0);
  forEachElement(t.shape, strides, [&](int64_t i, int64_t offset) {
    encode(kind, t.data[i], bytes.data() + offset * bytesOf(kind));
  });
  auto buffer = attn::DeviceBuffer::allocate(bytes.size());
  if (!buffer)
    return buffer.status();
  attn::Driver *driver = *attn::Driver::get();
  if (attn::Status s = driver->copyToDevice(buffer->get(), bytes.data(), bytes.size()); !s)
    return s;
  return DeviceTensor{std::make_shared<attn::DeviceBuffer>(std::move(*buffer)),
                      t.shape, std::move(strides), kind};
}

attn::Result<DeviceTensor> allocatePoisoned(std::vector<int64_t> shape, Kind kind,
                                            std::vector<int64_t> strides) {
  int64_t bytes = numElements(shape) * bytesOf(kind);
  auto buffer = attn::DeviceBuffer::allocate(bytes);
  if (!buffer)
    return buffer.status();
  // All-ones bytes are NaN in f16, bf16 and f32: an element no kernel wrote
  // shows up as NaN in the check.
  if (attn::Status s = (*attn::Driver::get())->fill(buffer->get(), 0xff, bytes); !s)
    return s;
  return DeviceTensor{std::make_shared<attn::DeviceBuffer>(std::move(*buffer)),
                      std::move(shape), std::move(strides), kind};
}

attn::Result<HostTensor> download(const DeviceTensor &t) {
  std::vector<unsigned char> bytes(t.buffer->size());
  if (attn::Status s = (*attn::Driver::get())
                           ->copyToHost(bytes.data(), t.buffer->get(), bytes.size());
      !s)
    return s;
  HostTensor h(t.shape);
  forEachElement(t.shape, t.strides, [&](int64_t i, int64_t offset) {
    h.data[i] = decode(t.kind, bytes.data() + offset * bytesOf(t.kind));
  });
  return h;
}

attn::TensorArg tensorArg(const DeviceTensor &t) {
  attn::TensorArg a;
  a.data = reinterpret_cast<const void *>(t.buffer->get());
  for (size_t d = 0; d < 4 && d < t.strides.size(); ++d)
    a.strides[d] = t.strides[d];
  return a;
}

/// Strides of a mask operand broadcast to the score shape: 0 where size 1.
attn::TensorArg broadcastArg(const DeviceTensor &t) {
  attn::TensorArg a = tensorArg(t);
  for (int d = 0; d < 4; ++d)
    if (t.shape[d] == 1)
      a.strides[d] = 0;
  return a;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Seeded inputs: normal floats (rounded to their type), key lengths in
/// [1, Skv], keep masks true with probability 0.8.
HostTensor randomInput(mlir::BlockArgument arg, std::mt19937_64 &rng,
                       mlir::func::FuncOp func) {
  auto type = mlir::cast<mlir::RankedTensorType>(arg.getType());
  HostTensor t(std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  Kind kind = *kindOf(type.getElementType());
  std::normal_distribution<double> normal(0.0, 1.0);
  std::bernoulli_distribution keep(0.8);
  if (kind == Kind::I32) {
    // Lengths of keys: the key sequence of the attention that uses them.
    int64_t maxLength = 1;
    func.walk([&](mlir::Operation *op) {
      for (mlir::Value operand : op->getOperands()) {
        if (operand != arg || op->getNumOperands() == 0)
          continue;
        // Fused attention: the keys are v's rows; a graph op's operand 0
        // is the score tensor, keys last.
        mlir::Value keys = op->getOperand(0);
        int64_t keysDim = 3;
        if (mlir::isa<mlir::attn::FlashOp, mlir::attn::FlashBwdOp>(op)) {
          keys = op->getOperand(2);
          keysDim = 2;
        }
        if (auto type = mlir::dyn_cast<mlir::RankedTensorType>(keys.getType()))
          if (type.getRank() == 4)
            maxLength = std::max<int64_t>(maxLength, type.getDimSize(keysDim));
      }
    });
    std::uniform_int_distribution<int64_t> length(1, maxLength);
    for (double &x : t.data)
      x = double(length(rng));
    return t;
  }
  for (double &x : t.data)
    x = kind == Kind::Bool ? (keep(rng) ? 1.0 : 0.0)
                           : representable(kind, normal(rng));
  return t;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// One kernel of the function, ready to enqueue again (for --bench).
struct Launch {
  std::shared_ptr<attn::Kernel> kernel;
  std::function<attn::Status()> enqueue;
  std::optional<attn::FlashArgs> flashArgs; ///< for fused attention
  attn::Kernel::Grid grid;
  double flops = 0, bytes = 0;
};

/// Fraction of (query, key) pairs the positional masks keep.
double maskDensity(const attn::KernelSpec &spec, int64_t sq, int64_t skv) {
  if (!spec.causal && !spec.window)
    return 1.0;
  int64_t kept = 0, offset = spec.bottomRight ? skv - sq : 0;
  for (int64_t i = 0; i < sq; ++i) {
    int64_t lo = 0, hi = skv - 1, diag = i + offset;
    if (spec.causal)
      hi = std::min(hi, diag);
    if (spec.window && spec.windowRight >= 0)
      hi = std::min(hi, diag + spec.windowRight);
    if (spec.window && spec.windowLeft >= 0)
      lo = std::max<int64_t>(lo, diag - spec.windowLeft);
    kept += std::max<int64_t>(0, hi - lo + 1);
  }
  return double(kept) / double(sq * skv);
}

/// Datasheet dense 16-bit tensor-core rate, TFLOP/s, by compute capability.
double peakTflops(const attn::DeviceInfo &d) {
  double perSmPerClock = d.major >= 9 ? 4096 : d.major == 8 && d.minor == 0 ? 2048 : 1024;
  return perSmPerClock * d.multiprocessors * (d.clockKHz * 1e3) / 1e12;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

using ValueMap = llvm::DenseMap<mlir::Value, DeviceTensor>;

/// Shared memory per block: dynamic (fused kernels) plus static (ptxas).
int sharedBytes(const attn::Kernel &kernel) {
  return kernel.spec().sharedBytes + kernel.ptxas().sharedBytes;
}

/// A tensor's argument as a graph-op kernel sees it: strides of its rank-4
/// view (a rank-r tensor's in the last r entries).
attn::TensorArg rank4Arg(const DeviceTensor &t) {
  attn::TensorArg a;
  a.data = reinterpret_cast<const void *>(t.buffer->get());
  size_t pad = 4 - t.strides.size();
  for (size_t d = 0; d < t.strides.size(); ++d)
    a.strides[pad + d] = t.strides[d];
  return a;
}

double tensorBytes(const DeviceTensor &t) {
  return double(numElements(t.shape)) * bytesOf(t.kind);
}

/// Allocates the output of an attn.flash (in the layout of q) and binds its
/// operands.
attn::Result<Launch> prepareFlash(mlir::attn::FlashOp flash,
                                  std::shared_ptr<attn::Kernel> kernel,
                                  ValueMap &values, bool bshd) {
  Launch l;
  l.kernel = kernel;
  const attn::KernelSpec &spec = kernel->spec();
  // Copies: inserting the output below may move the map's entries.
  const DeviceTensor q = values[flash.getQ()], k = values[flash.getK()],
                     v = values[flash.getV()];
  std::vector<int64_t> outShape = {q.shape[0], q.shape[1], q.shape[2], v.shape[3]};
  auto out = allocatePoisoned(outShape, q.kind,
                              bshd ? bshdStrides(outShape) : contiguousStrides(outShape));
  if (!out)
    return out.status();
  values[flash.getOutput()] = *out;
  attn::FlashArgs args;
  args.batch = int(q.shape[0]);
  args.seqQ = int(q.shape[2]);
  args.seqKV = int(spec.transposeK ? k.shape[3] : k.shape[2]);
  args.q = tensorArg(q);
  args.k = tensorArg(k);
  args.v = tensorArg(v);
  args.o = tensorArg(*out);
  args.splits = splitsOption;
  if (mlir::Value lse = flash.getLse()) {
    std::vector<int64_t> shape = {q.shape[0], q.shape[1], q.shape[2]};
    auto buffer = allocatePoisoned(shape, Kind::F32, contiguousStrides(shape));
    if (!buffer)
      return buffer.status();
    values[lse] = *buffer;
    args.lse = reinterpret_cast<float *>(buffer->buffer->get());
  }
  if (mlir::Value lengths = flash.getLengths())
    args.lengths = reinterpret_cast<const int *>(values[lengths].buffer->get());
  if (mlir::Value keep = flash.getKeep())
    args.keep = broadcastArg(values[keep]);
  if (mlir::Value bias = flash.getBias())
    args.bias = broadcastArg(values[bias]);
  double density = maskDensity(spec, args.seqQ, args.seqKV);
  l.flops = 2.0 * args.batch * spec.headsQ * double(args.seqQ) * args.seqKV *
            (spec.headDimQK + spec.headDimV) * density;
  l.bytes = tensorBytes(q) + tensorBytes(k) + tensorBytes(v) + tensorBytes(*out);
  l.grid = kernel->grid(args.batch, args.seqQ);
  l.enqueue = [kernel, args] { return kernel->launch(args); };
  l.flashArgs = args;
  return l;
}

/// Allocates the gradients of an attn.flash_bwd (in the layout of their
/// inputs) and its workspace, and binds its operands.
attn::Result<Launch> prepareFlashBackward(mlir::attn::FlashBwdOp op,
                                          std::shared_ptr<attn::Kernel> kernel,
                                          ValueMap &values) {
  Launch l;
  l.kernel = kernel;
  const attn::KernelSpec &spec = kernel->spec();
  const DeviceTensor q = values[op.getQ()], k = values[op.getK()],
                     v = values[op.getV()], o = values[op.getO()],
                     dO = values[op.getGradOutput()], lse = values[op.getLse()];
  attn::BackwardArgs args;
  args.batch = int(q.shape[0]);
  args.seqQ = int(q.shape[2]);
  args.seqKV = int(k.shape[2]);
  args.q = tensorArg(q);
  args.k = tensorArg(k);
  args.v = tensorArg(v);
  args.o = tensorArg(o);
  args.gradOutput = tensorArg(dO);
  args.lse = reinterpret_cast<const float *>(lse.buffer->get());
  args.deterministic = deterministicOption;
  if (mlir::Value lengths = op.getLengths())
    args.lengths = reinterpret_cast<const int *>(values[lengths].buffer->get());
  if (mlir::Value keep = op.getKeep())
    args.keep = broadcastArg(values[keep]);
  if (mlir::Value bias = op.getBias())
    args.bias = broadcastArg(values[bias]);
  // The gradients, poisoned so that an element no kernel wrote shows.
  std::pair<mlir::Value, const DeviceTensor *> grads[] = {
      {op.getGradQ(), &q}, {op.getGradK(), &k}, {op.getGradV(), &v}};
  attn::TensorArg *gradArgs[] = {&args.gradQ, &args.gradK, &args.gradV};
  for (auto [i, grad] : llvm::enumerate(grads)) {
    auto buffer = allocatePoisoned(grad.second->shape, grad.second->kind,
                                   grad.second->strides);
    if (!buffer)
      return buffer.status();
    values[grad.first] = *buffer;
    *gradArgs[i] = tensorArg(*buffer);
    l.bytes += 2 * tensorBytes(*buffer);
  }
  if (mlir::Value gradBias = op.getGradBias()) {
    auto type = mlir::cast<mlir::RankedTensorType>(gradBias.getType());
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    auto buffer = allocatePoisoned(shape, *kindOf(type.getElementType()),
                                   contiguousStrides(shape));
    if (!buffer)
      return buffer.status();
    values[gradBias] = *buffer;
    args.gradBias = tensorArg(*buffer);
  }
  auto bytes = kernel->workspaceBytes(args);
  if (!bytes)
    return bytes.status();
  auto workspace = attn::DeviceBuffer::allocate(*bytes);
  if (!workspace)
    return workspace.status();
  auto owned = std::make_shared<attn::DeviceBuffer>(std::move(*workspace));
  args.workspace = reinterpret_cast<void *>(owned->get());
  args.workspaceSize = owned->size();
  double density = maskDensity(spec, args.seqQ, args.seqKV);
  // S, dP, dV, dK and dQ: 2.5 times the forward's products.
  l.flops = 2.0 * args.batch * spec.headsQ * double(args.seqQ) * args.seqKV *
            (3.0 * spec.headDimQK + 2.0 * spec.headDimV) * density;
  l.bytes += tensorBytes(q) + tensorBytes(k) + tensorBytes(v) +
             tensorBytes(o) + tensorBytes(dO);
  l.grid = {unsigned((args.seqKV + spec.blockN - 1) / spec.blockN),
            unsigned(spec.headsKV), unsigned(args.batch)};
  l.enqueue = [kernel, args, owned] { return kernel->launch(args); };
  return l;
}

/// Runs a fused kernel once more with its tile counters and prints what the
/// schedule did: key tiles computed out of all, and how many were masked.
attn::Status printTileStats(const Launch &l) {
  attn::Driver *driver = *attn::Driver::get();
  auto counters = attn::DeviceBuffer::allocate(2 * sizeof(unsigned long long));
  if (!counters)
    return counters.status();
  if (attn::Status s = driver->fill(counters->get(), 0, counters->size()); !s)
    return s;
  attn::FlashArgs args = *l.flashArgs;
  args.tileStats = reinterpret_cast<unsigned long long *>(counters->get());
  if (attn::Status s = l.kernel->launch(args); !s)
    return s;
  unsigned long long stats[2];
  if (attn::Status s = driver->copyToHost(stats, counters->get(), sizeof(stats)); !s)
    return s;
  const attn::KernelSpec &spec = l.kernel->spec();
  auto splits = l.kernel->splitsFor(args);
  if (!splits)
    return splits.status();
  unsigned long long all = (unsigned long long)l.grid.x * l.grid.y * l.grid.z *
                           ((args.seqKV + spec.blockN - 1) / spec.blockN);
  std::printf("key tiles of %s: %llu of %llu computed (%.1f%% skipped), %llu "
              "masked element-wise; %d split%s per query block%s\n",
              spec.name.c_str(), stats[0], all,
              all ? 100.0 * double(all - stats[0]) / double(all) : 0.0, stats[1],
              *splits, *splits == 1 ? "" : "s",
              l.kernel->packsQueryHeads(args.seqQ) ? ", query heads packed" : "");
  return attn::Status::ok();
}

/// Binds the inputs of an attn.kernel and its result: a new (poisoned)
/// tensor, or with in_place the first input's memory.
attn::Result<Launch> prepareGraphKernel(mlir::attn::KernelOp op,
                                        std::shared_ptr<attn::Kernel> kernel,
                                        ValueMap &values) {
  Launch l;
  l.kernel = kernel;
  attn::GraphArgs args;
  for (mlir::Value input : op.getInputs()) {
    const DeviceTensor &t = values[input];
    args.inputs.push_back(rank4Arg(t));
    l.bytes += tensorBytes(t);
  }
  DeviceTensor out;
  if (op.getInPlace()) {
    out = values[op.getInputs().front()];
  } else {
    auto type = mlir::cast<mlir::RankedTensorType>(op.getType());
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    auto kind = kindOf(type.getElementType());
    if (mlir::failed(kind))
      return attn::Status(attn::StatusCode::Unsupported,
                          "attn.kernel result type is not f16, bf16 or f32");
    auto buffer = allocatePoisoned(shape, *kind, contiguousStrides(shape));
    if (!buffer)
      return buffer.status();
    out = *buffer;
  }
  values[op.getResult()] = out;
  args.output = rank4Arg(out);
  l.bytes += tensorBytes(out);
  if (auto matmul = mlir::dyn_cast<mlir::attn::MatmulOp>(op.getPayload())) {
    auto lhs = matmul.getLhs().getType();
    int64_t depth = lhs.getDimSize(lhs.getRank() - (matmul.getTransposeLhs() ? 2 : 1));
    l.flops = 2.0 * double(numElements(out.shape)) * depth;
  }
  l.grid = kernel->grid(0, 0);
  l.enqueue = [kernel, args] { return kernel->launch(args); };
  return l;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // Line-buffered even into a pipe, so a log shows how far a run got.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "attn-run: compile an attention graph, run it on random inputs, check "
      "it against the float64 CPU reference, time and profile it.\n\n"
      "Attention chains are fused into attn.flash kernels; with --unfused, "
      "or for a file of attn.kernel ops (attn-opt --attn-lower-unfused), "
      "every graph op runs as its own kernel. --bench times each kernel and "
      "the function's kernels back to back.\n\n"
      "Without a GPU, prints the compile-only report (variant, ptxas "
      "resources, compile time, cache hit or miss) and exits 0.\n");

  bool bshd = layoutOption == "bshd";
  if (!bshd && layoutOption != "bhsd")
    return fail("--layout must be bhsd or bshd, got '" + layoutOption + "'");

  mlir::MLIRContext context;
  attn::registerAttnDialects(context);
  llvm::SourceMgr sourceMgr;
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!file)
    return fail("cannot read " + inputFile + ": " + file.getError().message());
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  mlir::OwningOpRef<mlir::ModuleOp> original = module->clone();
  mlir::func::FuncOp func, originalFunc;
  for (auto f : module->getOps<mlir::func::FuncOp>())
    if (!f.isExternal()) {
      func = f;
      break;
    }
  if (!func)
    return fail(inputFile + " has no function with a body");
  originalFunc = original->lookupSymbol<mlir::func::FuncOp>(func.getSymName());

  attn::Result<attn::DeviceInfo> device = attn::Context::device();
  attn::Context::Options contextOptions;
  contextOptions.arch = archOption;
  contextOptions.cacheDirectory = cacheDirOption;
  contextOptions.diskCache = !noDiskCacheOption;
  auto ctx = attn::Context::create(contextOptions);
  if (!ctx)
    return fail(ctx.status().toString());

  auto nvrtc = attn::Nvrtc::get();
  std::printf("attn-run %s: arch %s, NVRTC %s, %s\n", inputFile.c_str(),
              (*ctx)->arch().c_str(),
              nvrtc ? (*nvrtc)->version().c_str() : "missing",
              device ? (device->name + ", " + std::to_string(device->multiprocessors) +
                        " SMs").c_str()
                     : "no GPU (compile only)");
  if (unfusedOption && (!variantOption.empty() || blockMOption || blockNOption ||
                        numWarpsOption || stagesOption))
    return fail("--unfused runs no fused kernel; --variant and the tile "
                "options do not apply");
  attn::CompileOptions compileOptions;
  compileOptions.unfused = unfusedOption;
  compileOptions.backward = backwardOption;
  compileOptions.backwardBiasGrad = biasGradOption;
  compileOptions.variant = variantOption;
  compileOptions.blockM = blockMOption;
  compileOptions.blockN = blockNOption;
  compileOptions.numWarps = numWarpsOption;
  compileOptions.stages = stagesOption;
  attn::Result<attn::CompiledModule> compiled =
      attn::compileModule(**ctx, *module, compileOptions);
  if (!compiled)
    return fail(compiled.status().toString());
  for (const std::string &remark : compiled->remarks)
    std::printf("%s\n", remark.c_str());
  if (printIR)
    std::printf("%s\n", compiled->loweredIR.c_str());

  std::printf("%-58s %-8s %5s %6s %7s %7s %9s  %s\n", "kernel", "variant",
              "regs", "spill", "stack", "smem", "build", "cache");
  for (const auto &k : compiled->kernels) {
    const attn::KernelSpec &s = k->spec();
    auto registers = k->registers();
    std::printf("%-58s %-8s %5s %6d %7d %7d %7.1fms  %s\n", s.name.c_str(),
                s.variant.c_str(),
                registers ? std::to_string(*registers).c_str() : "-",
                k->ptxas().spillStoreBytes + k->ptxas().spillLoadBytes,
                k->ptxas().stackFrameBytes, sharedBytes(*k), k->buildMs(),
                attn::cacheOutcomeName(k->cacheOutcome()));
  }
  std::printf("pipeline + build: %.1f ms\n", compiled->pipelineMs);
  // Inputs on the host (the reference's too): read and checked even
  // without a GPU, so that a bad --inputs is reported either way.
  std::vector<HostTensor> inputs;
  std::mt19937_64 rng(seedOption);
  std::vector<std::string> npyFiles;
  if (!inputsOption.empty()) {
    llvm::SmallVector<StringRef> parts;
    StringRef(inputsOption).split(parts, ',');
    for (StringRef p : parts)
      npyFiles.push_back(p.str());
    if (npyFiles.size() != func.getNumArguments())
      return fail("--inputs has " + std::to_string(npyFiles.size()) +
                  " files for " + std::to_string(func.getNumArguments()) +
                  " arguments");
  }
  mlir::Block &body = func.getBody().front();
  if (device || !npyFiles.empty()) {
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      auto type = mlir::dyn_cast<mlir::RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape() ||
          failed(kindOf(type.getElementType())))
        return fail("argument " + std::to_string(i) +
                    " must be a static tensor of f16, bf16, f32, i32 or i1");
      std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
      if (npyFiles.empty()) {
        inputs.push_back(randomInput(arg, rng, func));
        continue;
      }
      auto loaded = readNpy(npyFiles[i]);
      if (!loaded)
        return fail(loaded.status().message());
      if (loaded->shape != shape)
        return fail(npyFiles[i] + " has shape " + shapeString(loaded->shape) +
                    ", argument " + std::to_string(i) + " is " +
                    shapeString(shape));
      for (double &x : loaded->data)
        x = representable(*kindOf(type.getElementType()), x);
      inputs.push_back(std::move(*loaded));
    }
    if (!npyFiles.empty())
      std::printf("inputs: %zu .npy files read\n", npyFiles.size());
  }

  if (!device) {
    std::printf("no GPU: %s\ncompile-only report done\n",
                device.status().message().c_str());
    if (checkOption || benchOption || profileOption)
      std::printf("--check, --bench and --profile need a GPU; skipped\n");
    return 0;
  }

  // The inputs on the device, q/k/v in the requested layout.
  llvm::DenseMap<mlir::Value, DeviceTensor> values;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    const HostTensor &t = inputs[i];
    auto type = mlir::cast<mlir::RankedTensorType>(arg.getType());
    Kind kind = *kindOf(type.getElementType());
    bool qkv = type.getRank() == 4 && (kind == Kind::F16 || kind == Kind::BF16);
    auto dev = upload(t, kind, bshd && qkv ? bshdStrides(t.shape)
                                           : contiguousStrides(t.shape));
    if (!dev)
      return fail(dev.status().toString());
    values[arg] = *dev;
  }

  // The function op by op: attn.flash and attn.kernel on the GPU; casts
  // between fused kernels alias (the kernels read and write 16-bit types).
  std::vector<Launch> launches;
  size_t kernelIndex = 0;
  mlir::func::ReturnOp ret;
  for (mlir::Operation &op : func.getBody().front()) {
    if (auto r = mlir::dyn_cast<mlir::func::ReturnOp>(op)) {
      ret = r;
      break;
    }
    if (mlir::isa<mlir::arith::ExtFOp, mlir::arith::TruncFOp>(op)) {
      DeviceTensor input = values[op.getOperand(0)];
      values[op.getResult(0)] = input;
      continue;
    }
    // Constants hoisted out of score_mod regions are emitted into the kernel.
    if (mlir::isa<mlir::arith::ConstantOp>(op))
      continue;
    if (auto graphKernel = mlir::dyn_cast<mlir::attn::KernelOp>(op)) {
      auto launch = prepareGraphKernel(graphKernel, compiled->kernels[kernelIndex++],
                                       values);
      if (!launch)
        return fail(launch.status().toString());
      if (attn::Status s = launch->enqueue(); !s)
        return fail(s.toString());
      launches.push_back(*launch);
      continue;
    }
    if (auto backward = mlir::dyn_cast<mlir::attn::FlashBwdOp>(op)) {
      auto launch = prepareFlashBackward(backward, compiled->kernels[kernelIndex++],
                                         values);
      if (!launch)
        return fail(launch.status().toString());
      if (attn::Status s = launch->enqueue(); !s)
        return fail(s.toString());
      launches.push_back(*launch);
      continue;
    }
    auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op);
    if (!flash)
      return fail("after the pipeline the function still has '" +
                  op.getName().getStringRef().str() +
                  "', which attn-run cannot execute (see the remarks above; "
                  "--unfused runs every graph op as its own kernel)");
    auto launch = prepareFlash(flash, compiled->kernels[kernelIndex++], values, bshd);
    if (!launch)
      return fail(launch.status().toString());
    if (attn::Status s = launch->enqueue(); !s)
      return fail(s.toString());
    launches.push_back(*launch);
  }
  attn::Driver *driver = *attn::Driver::get();
  if (attn::Status s = driver->synchronize(); !s)
    return fail("kernel failed: " + s.toString());
  std::printf("ran %zu kernel(s) on %s\n", launches.size(), device->name.c_str());

  int status = 0;
  if (checkOption) {
    std::vector<HostTensor> outputs;
    for (mlir::Value v : ret.getOperands()) {
      auto host = download(values[v]);
      if (!host)
        return fail(host.status().toString());
      outputs.push_back(std::move(*host));
    }
    // A sample of (batch, head) slices: first, last and seeded random ones.
    mlir::attn::reference::Options options;
    auto firstType = mlir::cast<mlir::RankedTensorType>(ret.getOperand(0).getType());
    int64_t batch = firstType.getDimSize(0), heads = firstType.getDimSize(1);
    if (slicesOption && uint64_t(batch * heads) > slicesOption) {
      options.slices = {{0, 0}, {batch - 1, heads - 1}};
      std::uniform_int_distribution<int64_t> bd(0, batch - 1), hd(0, heads - 1);
      while (options.slices.size() < slicesOption)
        options.slices.emplace_back(bd(rng), hd(rng));
    }
    auto start = std::chrono::steady_clock::now();
    // The gradients of a backward have no graph to check against: the
    // reference evaluates the step's attn.flash and attn.flash_bwd.
    bool backward = !func.getBody().getOps<mlir::attn::FlashBwdOp>().empty();
    auto expected = mlir::attn::reference::evaluate(
        backward ? func : originalFunc, inputs, options);
    if (mlir::failed(expected))
      return fail("the CPU reference cannot evaluate this function");
    double refMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start).count();
    for (size_t i = 0; i < outputs.size(); ++i) {
      // Every element the sample covers must have been written.
      int64_t unwritten = 0;
      for (size_t j = 0; j < outputs[i].data.size(); ++j)
        if (!std::isnan((*expected)[i].data[j]) && std::isnan(outputs[i].data[j]))
          ++unwritten;
      int64_t compared = 0;
      double err = mlir::attn::reference::relativeError(outputs[i], (*expected)[i],
                                                       &compared);
      bool pass = unwritten == 0 && err <= toleranceOption;
      std::printf("check output %zu (%s): rel L2 error %.3e over %lld values%s, "
                  "%lld unwritten: %s\n",
                  i, shapeString(outputs[i].shape).c_str(), err,
                  (long long)compared,
                  options.slices.empty() ? "" : (" (" + std::to_string(options.slices.size()) +
                                                 " sampled slices)").c_str(),
                  (long long)unwritten, pass ? "PASS" : "FAIL");
      if (!pass)
        status = 1;
    }
    std::printf("reference: %.0f ms\n", refMs);
  }

  if (benchOption || profileOption) {
    auto startEv = driver->createEvent(), stopEv = driver->createEvent();
    if (!startEv || !stopEv)
      return fail("cannot create CUDA events");
    // Median time of `body` over --iters runs, after --warmup untimed ones.
    auto medianMs = [&](const std::function<attn::Status()> &body)
        -> attn::Result<double> {
      for (unsigned i = 0; i < warmupOption; ++i)
        if (attn::Status s = body(); !s)
          return s;
      std::vector<float> times;
      for (unsigned i = 0; i < itersOption; ++i) {
        (void)driver->recordEvent(*startEv, nullptr);
        if (attn::Status s = body(); !s)
          return s;
        (void)driver->recordEvent(*stopEv, nullptr);
        auto ms = driver->elapsedMs(*startEv, *stopEv);
        if (!ms)
          return ms.status();
        times.push_back(*ms);
      }
      std::sort(times.begin(), times.end());
      return times.empty() ? 0.0 : double(times[times.size() / 2]);
    };

    std::printf("%-58s %14s %6s %5s %7s %4s %9s %9s %8s %7s\n", "kernel",
                "grid", "block", "regs", "smem", "occ", "ms", "TFLOP/s", "GB/s",
                "%peak");
    double peakTf = peakTflops(*device), peakBw = device->peakBandwidthGBs();
    double sumMs = 0, sumBytes = 0;
    for (Launch &l : launches) {
      auto ms = medianMs(l.enqueue);
      if (!ms)
        return fail(ms.status().toString());
      double tflops = l.flops / (*ms * 1e-3) / 1e12;
      double gbs = l.bytes / (*ms * 1e-3) / 1e9;
      sumMs += *ms;
      sumBytes += l.bytes;
      auto occupancy = l.kernel->occupancy();
      auto registers = l.kernel->loadedRegisters();
      std::string gridText = std::to_string(l.grid.x) + "x" +
                             std::to_string(l.grid.y) + "x" +
                             std::to_string(l.grid.z);
      char tflopsText[32] = "-";
      if (l.flops > 0)
        std::snprintf(tflopsText, sizeof(tflopsText), "%.1f", tflops);
      std::printf("%-58s %14s %6d %5d %7d %4d %9.4f %9s %8.0f %6.1f%%\n",
                  l.kernel->spec().name.c_str(), gridText.c_str(),
                  l.kernel->blockThreads(), registers ? *registers : 0,
                  sharedBytes(*l.kernel), occupancy ? *occupancy : -1, *ms,
                  tflopsText, gbs,
                  100.0 * std::max(tflops / peakTf, gbs / peakBw));
    }
    // The kernels back to back, as a framework would enqueue them.
    auto sequenceMs = medianMs([&]() -> attn::Status {
      for (Launch &l : launches)
        if (attn::Status s = l.enqueue(); !s)
          return s;
      return attn::Status::ok();
    });
    if (!sequenceMs)
      return fail(sequenceMs.status().toString());
    (void)driver->destroyEvent(*startEv);
    (void)driver->destroyEvent(*stopEv);
    std::printf("total: %zu kernel(s), %.1f MB of operands and results, "
                "%.4f ms (sum of medians), %.4f ms back to back\n",
                launches.size(), sumBytes / 1e6, sumMs, *sequenceMs);
    std::printf("device peak: %.0f TFLOP/s (dense 16-bit), %.0f GB/s\n", peakTf,
                peakBw);
    if (profileOption)
      for (const Launch &l : launches)
        if (l.flashArgs)
          if (attn::Status s = printTileStats(l); !s)
            return fail(s.toString());
  }
  return status;
}
