//===- Runner.cpp - Running a compiled function on the GPU ----------------===//

#include "attn/Run/Runner.h"
#include "attn/Run/Profile.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <cmath>

namespace attn::run {

namespace {

using ValueMap = llvm::DenseMap<mlir::Value, DeviceTensor>;
using HostMap = llvm::DenseMap<mlir::Value, const HostTensor *>;

/// The workspace of a launch (FlashArgs or BackwardArgs): sized once, owned
/// by the launch (a launch never allocates).
template <typename Args>
Status allocateWorkspace(Launch &l, Args &args) {
  Result<size_t> workspaceBytes = l.kernel->workspaceBytes(args);
  if (!workspaceBytes)
    return workspaceBytes.status();
  if (*workspaceBytes) {
    Result<DeviceBuffer> workspace = DeviceBuffer::allocate(*workspaceBytes);
    if (!workspace)
      return workspace.status();
    l.workspace = std::make_shared<DeviceBuffer>(std::move(*workspace));
    args.workspace = l.workspace->get();
    args.workspaceBytes = l.workspace->size();
  }
  return Status::ok();
}

/// The tensors a score_mod reads (FlashArgs or BackwardArgs), uploaded
/// contiguous as the kernel reads them.
template <typename Args>
Status bindCaptures(mlir::OperandRange captures, ValueMap &values,
                    Args &args) {
  for (auto [i, capture] : llvm::enumerate(captures)) {
    if (i >= size_t(kMaxScoreModCaptures))
      return Status(StatusCode::Unsupported, "too many score_mod captures");
    args.scoreModCaptures[i] =
        reinterpret_cast<const void *>(values[capture].buffer->get());
  }
  return Status::ok();
}

/// The mask operands of an attn.flash or attn.flash_bwd: key-padding
/// lengths, keep and bias.
template <typename Op, typename Args>
void bindMaskOperands(Op op, ValueMap &values, Args &args) {
  if (mlir::Value lengths = op.getLengths())
    args.lengths = reinterpret_cast<const int *>(values[lengths].buffer->get());
  if (mlir::Value keep = op.getKeep())
    args.keep = broadcastArg(values[keep]);
  if (mlir::Value bias = op.getBias())
    args.bias = broadcastArg(values[bias]);
}

/// The score_mod's captures and the sinks of an attn.flash.
Status bindCapturesAndSinks(mlir::attn::FlashOp flash, ValueMap &values,
                            FlashArgs &args) {
  if (Status s = bindCaptures(flash.getCaptures(), values, args); !s)
    return s;
  if (mlir::Value sinks = flash.getSinks())
    args.sinks = reinterpret_cast<const float *>(values[sinks].buffer->get());
  return Status::ok();
}

/// Allocates the logsumexp result of an attn.flash, if it has one, f32 of
/// `shape` (poisoned), and binds it.
Status bindLse(mlir::attn::FlashOp flash, std::vector<int64_t> shape,
               ValueMap &values, FlashArgs &args) {
  mlir::Value lse = flash.getLse();
  if (!lse)
    return Status::ok();
  auto buffer = allocatePoisoned(shape, DataType::F32, contiguousStrides(shape));
  if (!buffer)
    return buffer.status();
  values[lse] = *buffer;
  args.lse = reinterpret_cast<float *>(buffer->buffer->get());
  return Status::ok();
}

/// What every fused launch ends with, whatever the layout of its operands:
/// the bytes it moves, its workspace, grid and enqueue, its output and lse.
Result<Launch> finishFlashLaunch(Launch l, mlir::attn::FlashOp flash,
                                 FlashArgs args, ValueMap &values,
                                 const DeviceTensor &q, const DeviceTensor &k,
                                 const DeviceTensor &v,
                                 const DeviceTensor &out) {
  l.bytes = tensorBytes(q) + tensorBytes(k) + tensorBytes(v) + tensorBytes(out);
  if (Status s = allocateWorkspace(l, args); !s)
    return s;
  std::shared_ptr<KernelGroup> kernel = l.kernel;
  // The grid of the kernel that runs these arguments (long keys may run
  // other tiles).
  Result<FlashKernel *> runs = kernel->kernelFor(args);
  if (!runs)
    return runs.status();
  l.grid = (*runs)->grid(args.batch, args.seqQ);
  l.enqueue = [kernel, args] { return kernel->launch(args); };
  l.flashArgs = args;
  l.output = out;
  if (mlir::Value lse = flash.getLse())
    l.lse = values[lse];
  return l;
}

/// A ragged batch: packed q, k, v, o, the offsets (their host values, the
/// function's arguments, give the longest sequences and the work done).
Result<Launch> prepareVarlenFlash(mlir::attn::FlashOp flash,
                                  std::shared_ptr<KernelGroup> kernel,
                                  ValueMap &values, const HostMap &host,
                                  const RunOptions &options) {
  Launch l;
  l.kernel = kernel;
  const KernelSpec &spec = kernel->spec();
  const DeviceTensor q = values[flash.getQ()], k = values[flash.getK()],
                     v = values[flash.getV()];
  const HostTensor *cuQ = host.lookup(flash.getCuSeqlensQ()),
                   *cuK = host.lookup(flash.getCuSeqlensK());
  if (!cuQ || !cuK)
    return Status(StatusCode::Unsupported,
                  "attn-run reads cu_seqlens_q and cu_seqlens_k from the "
                  "function's arguments");
  std::vector<int64_t> outShape = {q.shape[0], q.shape[1], v.shape[2]};
  auto out = allocatePoisoned(outShape, q.type, contiguousStrides(outShape));
  if (!out)
    return out.status();
  values[flash.getOutput()] = *out;
  FlashArgs args;
  args.batch = int(cuQ->shape[0] - 1);
  args.seqQ = int(q.shape[0]);
  args.seqKV = int(k.shape[0]);
  args.q = packedArg(q);
  args.k = packedArg(k);
  args.v = packedArg(v);
  args.o = packedArg(*out);
  args.splits = options.splits;
  args.batchInvariant = options.batchInvariant;
  args.cuSeqlensQ = reinterpret_cast<const int *>(
      values[flash.getCuSeqlensQ()].buffer->get());
  args.cuSeqlensK = reinterpret_cast<const int *>(
      values[flash.getCuSeqlensK()].buffer->get());
  if (Status s = bindLse(flash, {q.shape[1], q.shape[0]}, values, args); !s)
    return s;
  if (Status s = bindCapturesAndSinks(flash, values, args); !s)
    return s;
  // The work of each sequence, with the offsets clamped as the kernel does.
  auto clamped = [](const HostTensor &cu, int b, int64_t total) {
    int64_t start = std::clamp<int64_t>(int64_t(cu.data[b]), 0, total);
    int64_t end = std::clamp<int64_t>(int64_t(cu.data[b + 1]), start, total);
    return end - start;
  };
  for (int b = 0; b < args.batch; ++b) {
    int64_t sq = clamped(*cuQ, b, args.seqQ), sk = clamped(*cuK, b, args.seqKV);
    args.maxSeqlenQ = std::max<int>(args.maxSeqlenQ, int(sq));
    args.maxSeqlenK = std::max<int>(args.maxSeqlenK, int(sk));
    if (sq && sk)
      l.flops += 2.0 * spec.headsQ * double(sq) * double(sk) *
                 (spec.headDimQK + spec.headDimV) * maskDensity(spec, sq, sk);
    l.keyTiles += static_cast<unsigned long long>(spec.headsQ) *
                  ((sq + spec.blockM - 1) / spec.blockM) *
                  ((sk + spec.blockN - 1) / spec.blockN);
  }
  return finishFlashLaunch(std::move(l), flash, args, values, q, k, v, *out);
}

/// Allocates the output of an attn.flash (in the layout of q) and binds its
/// operands.
Result<Launch> prepareFlash(mlir::attn::FlashOp flash,
                            std::shared_ptr<KernelGroup> kernel, ValueMap &values,
                            const HostMap &host, const RunOptions &options) {
  if (flash.isVarlen())
    return prepareVarlenFlash(flash, kernel, values, host, options);
  Launch l;
  l.kernel = kernel;
  const KernelSpec &spec = kernel->spec();
  // Copies: inserting the output below may move the map's entries.
  const DeviceTensor q = values[flash.getQ()], k = values[flash.getK()],
                     v = values[flash.getV()];
  std::vector<int64_t> outShape = {q.shape[0], q.shape[1], q.shape[2], v.shape[3]};
  auto out = allocatePoisoned(outShape, q.type,
                              options.bshd ? bshdStrides(outShape)
                                           : contiguousStrides(outShape));
  if (!out)
    return out.status();
  values[flash.getOutput()] = *out;
  FlashArgs args;
  args.batch = int(q.shape[0]);
  args.seqQ = int(q.shape[2]);
  args.seqKV = int(spec.transposeK ? k.shape[3] : k.shape[2]);
  if (mlir::Value table = flash.getBlockTable()) {
    // A paged cache: [pages, Hkv, page_size, D]; each sequence's keys are
    // its row of the table's pages.
    const DeviceTensor &t = values[table];
    args.blockTable = reinterpret_cast<const int *>(t.buffer->get());
    args.blockTableStride = t.strides[0];
    args.numPages = int(k.shape[0]);
    args.pageSize = int(k.shape[2]);
    args.seqKV = int(t.shape[1] * k.shape[2]);
  }
  args.q = tensorArg(q);
  args.k = tensorArg(k);
  args.v = tensorArg(v);
  args.o = tensorArg(*out);
  args.splits = options.splits;
  args.batchInvariant = options.batchInvariant;
  if (Status s = bindLse(flash, {q.shape[0], q.shape[1], q.shape[2]}, values,
                         args);
      !s)
    return s;
  bindMaskOperands(flash, values, args);
  if (Status s = bindCapturesAndSinks(flash, values, args); !s)
    return s;
  double density = maskDensity(spec, args.seqQ, args.seqKV);
  l.flops = 2.0 * args.batch * spec.headsQ * double(args.seqQ) * args.seqKV *
            (spec.headDimQK + spec.headDimV) * density;
  return finishFlashLaunch(std::move(l), flash, args, values, q, k, v, *out);
}

/// Allocates the gradients of an attn.flash_bwd (poisoned, in the layout of
/// what they differentiate) and its workspace, and binds its operands.
Result<Launch> prepareFlashBackward(mlir::attn::FlashBwdOp op,
                                    std::shared_ptr<KernelGroup> kernel,
                                    ValueMap &values, const HostMap &host,
                                    const RunOptions &options) {
  Launch l;
  l.kernel = kernel;
  const KernelSpec &spec = kernel->spec();
  // Copies: inserting the gradients below may move the map's entries.
  const DeviceTensor q = values[op.getQ()], k = values[op.getK()],
                     v = values[op.getV()], o = values[op.getO()],
                     dO = values[op.getGradOutput()], lse = values[op.getLse()];
  const bool varlen = op.isVarlen();
  // Packed [T, H, D] tensors as BHSD without a batch stride.
  auto arg = [varlen](const DeviceTensor &t) {
    return varlen ? packedArg(t) : tensorArg(t);
  };
  BackwardArgs args;
  args.batch = int(q.shape[0]);
  args.seqQ = int(q.shape[2]);
  args.seqKV = int(k.shape[2]);
  // (sequence, query rows, key rows) of the work: a dense batch's, or each
  // ragged sequence's at its clamped offsets.
  std::vector<std::array<int64_t, 2>> work;
  if (varlen) {
    const HostTensor *cuQ = host.lookup(op.getCuSeqlensQ()),
                     *cuK = host.lookup(op.getCuSeqlensK());
    if (!cuQ || !cuK)
      return Status(StatusCode::Unsupported,
                    "attn-run reads cu_seqlens_q and cu_seqlens_k from the "
                    "function's arguments");
    args.batch = int(cuQ->shape[0] - 1);
    args.seqQ = int(q.shape[0]);
    args.seqKV = int(k.shape[0]);
    args.cuSeqlensQ = reinterpret_cast<const int *>(
        values[op.getCuSeqlensQ()].buffer->get());
    args.cuSeqlensK = reinterpret_cast<const int *>(
        values[op.getCuSeqlensK()].buffer->get());
    auto clamped = [](const HostTensor &cu, int b, int64_t total) {
      int64_t start = std::clamp<int64_t>(int64_t(cu.data[b]), 0, total);
      int64_t end = std::clamp<int64_t>(int64_t(cu.data[b + 1]), start, total);
      return end - start;
    };
    for (int b = 0; b < args.batch; ++b)
      work.push_back({clamped(*cuQ, b, args.seqQ), clamped(*cuK, b, args.seqKV)});
  } else {
    work.assign(size_t(args.batch), {args.seqQ, args.seqKV});
  }
  args.q = arg(q);
  args.k = arg(k);
  args.v = arg(v);
  args.o = arg(o);
  args.gradOutput = arg(dO);
  args.lse = reinterpret_cast<const float *>(lse.buffer->get());
  args.deterministic = options.deterministic;
  bindMaskOperands(op, values, args);
  if (Status s = bindCaptures(op.getCaptures(), values, args); !s)
    return s;
  // The gradients, poisoned so that an element no kernel wrote shows.
  std::pair<mlir::Value, const DeviceTensor *> grads[] = {
      {op.getGradQ(), &q}, {op.getGradK(), &k}, {op.getGradV(), &v}};
  TensorArg *gradArgs[] = {&args.gradQ, &args.gradK, &args.gradV};
  for (auto [i, grad] : llvm::enumerate(grads)) {
    auto buffer = allocatePoisoned(grad.second->shape, grad.second->type,
                                   grad.second->strides);
    if (!buffer)
      return buffer.status();
    values[grad.first] = *buffer;
    *gradArgs[i] = arg(*buffer);
    l.bytes += 2 * tensorBytes(*buffer);
  }
  if (mlir::Value gradBias = op.getGradBias()) {
    auto type = mlir::cast<mlir::RankedTensorType>(gradBias.getType());
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    auto buffer = allocatePoisoned(shape, *dataTypeOf(type.getElementType()),
                                   contiguousStrides(shape));
    if (!buffer)
      return buffer.status();
    values[gradBias] = *buffer;
    args.gradBias = tensorArg(*buffer);
  }
  if (mlir::Value gradSinks = op.getGradSinks()) {
    args.sinks =
        reinterpret_cast<const float *>(values[op.getSinks()].buffer->get());
    auto type = mlir::cast<mlir::RankedTensorType>(gradSinks.getType());
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    auto buffer =
        allocatePoisoned(shape, DataType::F32, contiguousStrides(shape));
    if (!buffer)
      return buffer.status();
    values[gradSinks] = *buffer;
    args.gradSinks = reinterpret_cast<float *>(buffer->buffer->get());
  }
  if (Status s = allocateWorkspace(l, args); !s)
    return s;
  // S, dP, dV, dK and dQ: 2.5 times the forward's products.
  for (auto [sq, sk] : work)
    if (sq && sk)
      l.flops += 2.0 * spec.headsQ * double(sq) * double(sk) *
                 (3.0 * spec.headDimQK + 2.0 * spec.headDimV) *
                 maskDensity(spec, sq, sk);
  l.bytes += tensorBytes(q) + tensorBytes(k) + tensorBytes(v) +
             tensorBytes(o) + tensorBytes(dO);
  // The K/V-stationary kernel's grid: (key blocks, K/V heads, batch); a
  // ragged batch's blocks of every sequence along x.
  l.grid.x = unsigned(varlen ? varlenMBlocks(args.batch, args.seqKV,
                                             int(spec.blockN))
                             : (args.seqKV + spec.blockN - 1) / spec.blockN);
  l.grid.y = unsigned(spec.headsKV);
  l.grid.z = unsigned(varlen ? 1 : args.batch);
  l.enqueue = [kernel, args] { return kernel->launch(args); };
  return l;
}

/// Binds the inputs of an attn.kernel and its result: a new (poisoned)
/// tensor, or with in_place the first input's memory.
Result<Launch> prepareGraphKernel(mlir::attn::KernelOp op,
                                  std::shared_ptr<KernelGroup> kernel,
                                  ValueMap &values) {
  Launch l;
  l.kernel = kernel;
  GraphArgs args;
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
    std::optional<DataType> element = dataTypeOf(type.getElementType());
    if (!element || *element == DataType::I32 || *element == DataType::I64 ||
        *element == DataType::Bool)
      return Status(StatusCode::Unsupported,
                    "attn.kernel result type is not f16, bf16 or f32");
    auto buffer = allocatePoisoned(shape, *element, contiguousStrides(shape));
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
  const GraphKernel *graph = kernel->primary().as<GraphKernel>();
  if (!graph)
    return kernel->primary().wrongKind("GraphArgs");
  l.grid = graph->grid();
  l.enqueue = [kernel, args] { return kernel->launch(args); };
  return l;
}

bool isRunnable(mlir::Operation &op) {
  return mlir::isa<mlir::func::ReturnOp, mlir::arith::ExtFOp,
                   mlir::arith::TruncFOp, mlir::arith::ConstantOp,
                   mlir::attn::KernelOp, mlir::attn::FlashOp,
                   mlir::attn::FlashBwdOp>(op);
}

} // namespace

std::optional<std::string> whyNotRunnable(mlir::func::FuncOp func) {
  for (mlir::Operation &op : func.getBody().front())
    if (!isRunnable(op))
      return "after the pipeline the function still has '" +
             op.getName().getStringRef().str() +
             "', which attn-run cannot execute (see the remarks above; "
             "--unfused runs every graph op as its own kernel)";
  return std::nullopt;
}

Result<Kernel *> kernelOf(const Launch &launch) {
  if (!launch.flashArgs)
    return &launch.kernel->primary();
  Result<FlashKernel *> kernel = launch.kernel->kernelFor(*launch.flashArgs);
  if (!kernel)
    return kernel.status();
  return static_cast<Kernel *>(*kernel);
}

Result<Execution> runFunction(mlir::func::FuncOp func,
                              const std::vector<std::shared_ptr<KernelGroup>> &kernels,
                              const std::vector<HostTensor> &inputs,
                              const RunOptions &options) {
  Execution run;
  if (std::optional<std::string> why = whyNotRunnable(func))
    return Status(StatusCode::Unsupported, *why);
  mlir::Block &body = func.getBody().front();
  if (inputs.size() != body.getNumArguments())
    return Status(StatusCode::InvalidArgument,
                  std::to_string(inputs.size()) + " inputs for " +
                      std::to_string(body.getNumArguments()) + " arguments");
  // The inputs on the device, q/k/v in the requested layout.
  HostMap host;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    const HostTensor &t = inputs[i];
    host[arg] = &t;
    auto type = mlir::cast<mlir::RankedTensorType>(arg.getType());
    DataType element = *dataTypeOf(type.getElementType());
    bool qkv = type.getRank() == 4 &&
               (element == DataType::F16 || element == DataType::BF16);
    auto dev = upload(t, element, options.bshd && qkv ? bshdStrides(t.shape)
                                                      : contiguousStrides(t.shape));
    if (!dev)
      return dev.status();
    run.values[arg] = *dev;
  }

  // attn.flash, attn.flash_bwd and attn.kernel on the GPU; casts between
  // fused kernels alias (the kernels read and write 16-bit types).
  size_t kernelIndex = 0;
  auto nextKernel = [&]() -> Result<std::shared_ptr<KernelGroup>> {
    if (kernelIndex >= kernels.size())
      return Status(StatusCode::InvalidArgument,
                    "the function has more kernels than were compiled");
    return kernels[kernelIndex++];
  };
  for (mlir::Operation &op : body) {
    if (auto r = mlir::dyn_cast<mlir::func::ReturnOp>(op)) {
      run.ret = r;
      break;
    }
    if (mlir::isa<mlir::arith::ExtFOp, mlir::arith::TruncFOp>(op)) {
      DeviceTensor input = run.values[op.getOperand(0)];
      run.values[op.getResult(0)] = input;
      continue;
    }
    // Constants hoisted out of score_mod regions are emitted into the kernel.
    if (mlir::isa<mlir::arith::ConstantOp>(op))
      continue;
    Result<Launch> launch = Status(StatusCode::Unsupported, "");
    if (auto graphKernel = mlir::dyn_cast<mlir::attn::KernelOp>(op)) {
      Result<std::shared_ptr<KernelGroup>> kernel = nextKernel();
      if (!kernel)
        return kernel.status();
      launch = prepareGraphKernel(graphKernel, *kernel, run.values);
    } else if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op)) {
      Result<std::shared_ptr<KernelGroup>> kernel = nextKernel();
      if (!kernel)
        return kernel.status();
      launch = prepareFlash(flash, *kernel, run.values, host, options);
    } else if (auto backward = mlir::dyn_cast<mlir::attn::FlashBwdOp>(op)) {
      Result<std::shared_ptr<KernelGroup>> kernel = nextKernel();
      if (!kernel)
        return kernel.status();
      launch = prepareFlashBackward(backward, *kernel, run.values, host, options);
    } else {
      return Status(StatusCode::Unsupported,
                    "after the pipeline the function still has '" +
                        op.getName().getStringRef().str() +
                        "', which attn-run cannot execute (see the remarks "
                        "above; --unfused runs every graph op as its own "
                        "kernel)");
    }
    if (!launch)
      return launch.status();
    if (Status s = launch->enqueue(); !s)
      return s;
    run.launches.push_back(*launch);
  }
  return run;
}

Status synchronize() {
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  return (*driver)->synchronize();
}

Result<int> checkSplitInvariance(const Execution &execution) {
  int compared = 0;
  for (const Launch &l : execution.launches) {
    if (!l.flashArgs || !l.output)
      continue;
    FlashArgs args = *l.flashArgs;
    Result<int> splits = l.kernel->splitsFor(args);
    if (!splits)
      return splits.status();
    args.splits = *splits + 3;
    auto output = allocatePoisoned(l.output->shape, l.output->type,
                                   l.output->strides);
    if (!output)
      return output.status();
    args.o.data = reinterpret_cast<const void *>(output->buffer->get());
    std::optional<DeviceTensor> lse;
    if (l.lse) {
      auto buffer =
          allocatePoisoned(l.lse->shape, l.lse->type, l.lse->strides);
      if (!buffer)
        return buffer.status();
      lse = *buffer;
      args.lse = reinterpret_cast<float *>(lse->buffer->get());
    }
    Result<size_t> bytes = l.kernel->workspaceBytes(args);
    if (!bytes)
      return bytes.status();
    std::optional<DeviceBuffer> workspace;
    if (*bytes) {
      Result<DeviceBuffer> allocated = DeviceBuffer::allocate(*bytes);
      if (!allocated)
        return allocated.status();
      workspace = std::move(*allocated);
      args.workspace = workspace->get();
      args.workspaceBytes = workspace->size();
    }
    if (Status s = l.kernel->launch(args); !s)
      return s;
    if (Status s = synchronize(); !s)
      return s;
    // Bitwise: every value the same, rows neither run wrote (NaN) alike.
    auto same = [](const DeviceTensor &a, const DeviceTensor &b) -> Result<bool> {
      auto x = download(a), y = download(b);
      if (!x)
        return x.status();
      if (!y)
        return y.status();
      for (size_t i = 0; i < x->data.size(); ++i)
        if (!(x->data[i] == y->data[i] ||
              (std::isnan(x->data[i]) && std::isnan(y->data[i]))))
          return false;
      return true;
    };
    Result<bool> equal = same(*l.output, *output);
    if (equal && *equal && l.lse)
      equal = same(*l.lse, *lse);
    if (!equal)
      return equal.status();
    if (!*equal)
      return Status(StatusCode::InvalidArgument,
                    "kernel " + l.kernel->spec().name + " gave other bits with " +
                        std::to_string(args.splits) + " splits than with " +
                        std::to_string(*splits));
    ++compared;
  }
  return compared;
}

Result<std::vector<HostTensor>> downloadResults(const Execution &execution) {
  std::vector<HostTensor> outputs;
  mlir::func::ReturnOp ret = execution.ret;
  for (mlir::Value v : ret.getOperands()) {
    auto it = execution.values.find(v);
    if (it == execution.values.end())
      return Status(StatusCode::InvalidArgument,
                    "a result of the function was not computed");
    auto host = download(it->second);
    if (!host)
      return host.status();
    outputs.push_back(std::move(*host));
  }
  return outputs;
}

} // namespace attn::run
