//===- Context.cpp - The JIT: build and launch kernels --------------------===//

#include "attn/Runtime/Context.h"
#include "attn/Runtime/Nvrtc.h"
#include "TensorChecks.h"
#include "attn/Runtime/Templates.h"

#include "attn/params.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace attn {

TensorArg TensorArg::contiguous(const void *data, const int64_t shape[4]) {
  TensorArg t;
  t.data = data;
  t.strides[3] = 1;
  for (int d = 2; d >= 0; --d)
    t.strides[d] = t.strides[d + 1] * shape[d + 1];
  return t;
}

const std::string &templatesDigest() {
  static const std::string digest = [] {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const EmbeddedTemplate &t : embeddedTemplates())
      h = hashBytes(std::string(t.name) + '\0' + t.source, h);
    return std::to_string(h);
  }();
  return digest;
}

Result<DeviceInfo> Context::device() {
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  return (*driver)->device();
}

Result<std::unique_ptr<Context>> Context::create(const Options &options) {
  std::unique_ptr<Context> context(new Context());
  context->arch_ = options.arch;
  if (context->arch_.empty()) {
    Result<DeviceInfo> info = device();
    context->arch_ = info ? info->arch() : "sm_90a";
  }
  if (context->arch_.rfind("sm_", 0) != 0)
    return Status(StatusCode::InvalidArgument,
                  "arch '" + context->arch_ + "' is not of the form sm_XY");
  std::string directory;
  if (options.diskCache)
    directory = options.cacheDirectory.empty() ? Cache::defaultDirectory()
                                               : options.cacheDirectory;
  context->cache_ = std::make_unique<Cache>(directory);
  return context;
}

/// Writes the source, NVRTC log and cubin of a kernel under $ATTN_DUMP_DIR,
/// if set (cuobjdump --dump-sass reads the cubin).
static void dumpIfAsked(const KernelSpec &spec, const NvrtcOutput *output) {
  const char *dir = std::getenv("ATTN_DUMP_DIR");
  if (!dir)
    return;
  std::string base = std::string(dir) + "/" + spec.name;
  std::ofstream(base + ".cu") << spec.source;
  if (output) {
    std::ofstream(base + ".log") << output->log;
    std::ofstream(base + ".cubin", std::ios::binary) << output->cubin;
    if (!output->ptx.empty())
      std::ofstream(base + ".ptx") << output->ptx;
  }
}

Result<std::shared_ptr<Kernel>> Context::build(const KernelSpec &spec) {
  auto start = std::chrono::steady_clock::now();
  // wgmma exists only on the arch-specific sm_90a target.
  if (spec.variant == "sm90" && arch_ != "sm_90a")
    return Status(StatusCode::Unsupported,
                  "kernel " + spec.name +
                      " uses the sm90 variant (wgmma), which needs sm_90a; "
                      "this context targets " +
                      arch_);
  Result<Nvrtc *> nvrtc = Nvrtc::get();
  if (!nvrtc)
    return nvrtc.status();
  std::string options;
  for (const std::string &option : Nvrtc::compileOptions(arch_))
    options += option + " ";
  std::string key = makeCacheKey(
      spec.name + "_" + arch_,
      {spec.source, options, arch_, (*nvrtc)->version(), templatesDigest()});

  std::shared_ptr<Kernel> kernel(new Kernel());
  kernel->spec_ = spec;
  kernel->arch_ = arch_;
  kernel->cacheKey_ = key;
  dumpIfAsked(spec, nullptr);
  auto compile = [&]() -> Result<CacheEntry> {
    Result<NvrtcOutput> out =
        (*nvrtc)->compile(spec.source, spec.name + ".cu", spec.name, arch_);
    if (!out)
      return out.status();
    dumpIfAsked(spec, &*out);
    CacheEntry entry;
    entry.cubin = std::move(out->cubin);
    entry.log = std::move(out->log);
    entry.ptxas = out->ptxas;
    return entry;
  };
  Result<std::shared_ptr<const CacheEntry>> entry =
      cache_->getOrCompile(key, compile, kernel->outcome_);
  if (!entry)
    return entry.status();
  kernel->entry_ = *entry;
  kernel->buildMs_ = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return kernel;
}

bool Kernel::packsQueryHeads(int seqQ) const {
  return spec_.kind == KernelKind::Flash && seqQ == 1 &&
         spec_.headsQ > spec_.headsKV && !spec_.causal && !spec_.window &&
         !spec_.keep && !spec_.bias && !spec_.scoreMod;
}

Kernel::Grid Kernel::grid(int batch, int seqQ) const {
  Grid g;
  if (spec_.kind == KernelKind::GraphOp) {
    g.x = spec_.grid[0];
    g.y = spec_.grid[1];
    g.z = spec_.grid[2];
    return g;
  }
  // Packed: the rows of K/V head h are query heads h * group .. + group - 1.
  bool packed = packsQueryHeads(seqQ);
  int rows = packed ? spec_.headsQ / spec_.headsKV : seqQ;
  g.x = static_cast<unsigned>((rows + spec_.blockM - 1) / spec_.blockM);
  g.y = static_cast<unsigned>(packed ? spec_.headsKV : spec_.headsQ);
  g.z = static_cast<unsigned>(batch);
  return g;
}

Result<void *> Kernel::function() {
  std::lock_guard<std::mutex> lock(loadMutex_);
  if (function_)
    return function_;
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  const DeviceInfo &device = (*driver)->device();
  if (device.arch() != arch_)
    return Status(StatusCode::InvalidArgument,
                  "kernel " + spec_.name + " was compiled for " + arch_ +
                      " but the GPU (" + device.name + ") is " + device.arch());
  if (spec_.sharedBytes > device.maxSharedPerBlockOptin)
    return Status(StatusCode::Unsupported,
                  "kernel " + spec_.name + " needs " +
                      std::to_string(spec_.sharedBytes) +
                      " bytes of shared memory; " + device.name + " allows " +
                      std::to_string(device.maxSharedPerBlockOptin));
  Result<void *> module = (*driver)->loadModule(entry_->cubin);
  if (!module)
    return module.status();
  Result<void *> fn = (*driver)->getFunction(*module, spec_.name);
  if (!fn)
    return fn.status();
  Status s = (*driver)->setDynamicShared(*fn, spec_.sharedBytes);
  if (!s)
    return s;
  if (spec_.kind == KernelKind::Flash) {
    Result<void *> combine = (*driver)->getFunction(*module, spec_.name + "_combine");
    if (!combine)
      return combine.status();
    combine_ = *combine;
  }
  if (spec_.kind == KernelKind::FlashBackward) {
    for (auto [suffix, slot] : {std::pair<const char *, void **>{"_pre", &backwardPre_},
                                {"_dq", &backwardDq_},
                                {"_convert", &backwardConvert_}}) {
      Result<void *> aux = (*driver)->getFunction(*module, spec_.name + suffix);
      if (!aux)
        return aux.status();
      *slot = *aux;
    }
    if (spec_.backwardDqSharedBytes > device.maxSharedPerBlockOptin)
      return Status(StatusCode::Unsupported,
                    "kernel " + spec_.name + "_dq needs " +
                        std::to_string(spec_.backwardDqSharedBytes) +
                        " bytes of shared memory; " + device.name + " allows " +
                        std::to_string(device.maxSharedPerBlockOptin));
    if (Status s = (*driver)->setDynamicShared(backwardDq_,
                                               spec_.backwardDqSharedBytes);
        !s)
      return s;
  }
  function_ = *fn;
  return function_;
}

int Kernel::chooseSplits(long long blocks, int tilesPerBlock,
                         int multiprocessors, int residentPerSm) {
  const long long slots = static_cast<long long>(multiprocessors) *
                          std::max(residentPerSm, 1);
  if (blocks <= 0 || blocks >= slots)
    return 1; // a full wave already
  const int most = std::clamp(tilesPerBlock / 2, 1, kMaxSplits);
  if (blocks * most <= slots)
    return most; // not even one wave: as many as allowed
  // The share of the block slots that n splits keep busy over the waves they
  // take: a last wave that is mostly empty costs as much as a full one.
  auto waveEfficiency = [&](int n) {
    long long launched = blocks * n;
    long long waves = (launched + slots - 1) / slots;
    return static_cast<double>(launched) / static_cast<double>(waves * slots);
  };
  double best = 0;
  for (int n = 1; n <= most; ++n)
    best = std::max(best, waveEfficiency(n));
  // The fewest splits near the best: each split adds a partial output to
  // write and merge.
  for (int n = 1; n <= most; ++n)
    if (waveEfficiency(n) >= kSplitEfficiency * best)
      return n;
  return 1;
}

Result<int> Kernel::splitsFor(const FlashArgs &a) {
  if (a.splits > 0)
    return std::min(a.splits, kMaxSplits);
  if (!residentPerSm_) {
    Result<int> resident = occupancy();
    if (!resident)
      return resident.status();
    residentPerSm_ = std::max(*resident, 1);
  }
  Grid g = grid(a.batch, a.seqQ);
  long long blocks = static_cast<long long>(g.x) * g.y * g.z;
  int tiles = (a.seqKV + spec_.blockN - 1) / spec_.blockN;
  return chooseSplits(blocks, tiles, (*Driver::get())->device().multiprocessors,
                      residentPerSm_);
}

Result<DevicePtr> Kernel::workspace(Stream stream, size_t bytes) {
  std::lock_guard<std::mutex> lock(workspaceMutex_);
  DeviceBuffer &buffer = workspaces_[stream];
  if (buffer.size() >= bytes)
    return buffer.get();
  // Work queued earlier may still read the old buffer.
  if (buffer.size())
    if (Status s = (*Driver::get())->synchronize(); !s)
      return s;
  Result<DeviceBuffer> grown = DeviceBuffer::allocate(bytes);
  if (!grown)
    return grown.status();
  buffer = std::move(*grown);
  return buffer.get();
}

Result<int> Kernel::occupancy() {
  Result<void *> fn = function();
  if (!fn)
    return fn.status();
  return (*Driver::get())->occupancy(*fn, spec_.threads, spec_.sharedBytes);
}

Result<int> Kernel::loadedRegisters() {
  Result<void *> fn = function();
  if (!fn)
    return fn.status();
  return (*Driver::get())->functionAttribute(*fn, CU_FUNC_ATTRIBUTE_NUM_REGS);
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

} // namespace detail

using detail::checkTensor;
using detail::invalid;

Status Kernel::validate(const FlashArgs &a) const {
  if (spec_.kind != KernelKind::Flash)
    return invalid("kernel " + spec_.name + " is not fused attention; launch it with " +
                   (spec_.kind == KernelKind::GraphOp ? "GraphArgs" : "BackwardArgs"));
  if (a.batch <= 0 || a.seqQ <= 0 || a.seqKV <= 0)
    return invalid("batch, seqQ and seqKV must be positive, got " +
                   std::to_string(a.batch) + ", " + std::to_string(a.seqQ) +
                   ", " + std::to_string(a.seqKV));
  auto mismatch = [&](const char *what, int64_t fixed, int64_t given) {
    return invalid(std::string("kernel ") + spec_.name + " was specialized for " +
                   what + " " + std::to_string(fixed) + " but the launch has " +
                   std::to_string(given));
  };
  if (spec_.batch >= 0 && spec_.batch != a.batch)
    return mismatch("batch", spec_.batch, a.batch);
  if (spec_.seqQ >= 0 && spec_.seqQ != a.seqQ)
    return mismatch("seqQ", spec_.seqQ, a.seqQ);
  if (spec_.seqKV >= 0 && spec_.seqKV != a.seqKV)
    return mismatch("seqKV", spec_.seqKV, a.seqKV);
  if (Status s = checkTensor("q", a.q, 3); !s)
    return s;
  // A transposed k is [B, H, D, S]: contiguous along the keys, its last
  // dimension, like every other operand.
  if (Status s = checkTensor("k", a.k, 3); !s)
    return s;
  if (Status s = checkTensor("v", a.v, 3); !s)
    return s;
  if (Status s = checkTensor("o", a.o, 3); !s)
    return s;
  if (spec_.writesLse && !a.lse)
    return invalid("the kernel writes logsumexp but 'lse' is null");
  if (spec_.keyPadding && !a.lengths)
    return invalid("the mask has key_padding but 'lengths' is null");
  if (spec_.keep && !a.keep.data)
    return invalid("the mask has keep but 'keep' is null");
  if (spec_.bias && !a.bias.data)
    return invalid("the mask has bias but 'bias' is null");
  if (a.splits < 0)
    return invalid("splits must be 0 (the heuristic's), 1 or more; got " +
                   std::to_string(a.splits));
  return Status::ok();
}

Status Kernel::launch(const FlashArgs &a, Stream stream) {
  if (Status s = validate(a); !s)
    return s;
  Result<void *> fn = function();
  if (!fn)
    return fn.status();

  FlashParams p = {};
  p.q = a.q.data;
  p.k = a.k.data;
  p.v = a.v.data;
  p.o = const_cast<void *>(a.o.data);
  p.lse = a.lse;
  p.lengths = a.lengths;
  p.keep = static_cast<const unsigned char *>(a.keep.data);
  p.bias = a.bias.data;
  p.tile_stats = a.tileStats;
  // The kernel reads rows along dimension 2: keys, or the head dim of a
  // transposed k ([B, H, D, S]).
  for (int d = 0; d < 3; ++d) {
    p.q_strides[d] = a.q.strides[d];
    p.k_strides[d] = a.k.strides[d];
    p.v_strides[d] = a.v.strides[d];
    p.o_strides[d] = a.o.strides[d];
  }
  for (int d = 0; d < 4; ++d) {
    p.keep_strides[d] = a.keep.strides[d];
    p.bias_strides[d] = a.bias.strides[d];
  }
  p.batch = a.batch;
  p.heads_q = spec_.headsQ;
  p.heads_kv = spec_.headsKV;
  p.seq_q = a.seqQ;
  p.seq_kv = a.seqKV;
  p.window_left = spec_.windowLeft;
  p.window_right = spec_.windowRight;
  p.scale = spec_.scale;
  p.scale_log2 = spec_.scale * 1.4426950408889634f;
  p.num_splits = 1;
  Result<int> splits = splitsFor(a);
  if (!splits)
    return splits.status();
  // Rows of [batch, headsQ, seqQ]: what the splits write and the merge reads.
  const size_t rows = static_cast<size_t>(a.batch) * spec_.headsQ * a.seqQ;
  if (*splits > 1) {
    Result<DevicePtr> ws = workspace(
        stream, sizeof(float) * *splits * rows * (spec_.headDimV + 1));
    if (!ws)
      return ws.status();
    p.num_splits = *splits;
    p.partial_o = reinterpret_cast<float *>(*ws);
    p.partial_lse = p.partial_o + *splits * rows * spec_.headDimV;
  }
  // The merge reads the rows unpacked.
  FlashParams combineParams = p;
  if (packsQueryHeads(a.seqQ)) {
    // One query per head: view q and o as [batch, headsKV, group, dim], whose
    // rows are heads (stride of a head). The logsumexp, [batch, headsQ, 1],
    // has the same layout either way.
    int group = spec_.headsQ / spec_.headsKV;
    p.q_strides[1] = a.q.strides[1] * group;
    p.q_strides[2] = a.q.strides[1];
    p.o_strides[1] = a.o.strides[1] * group;
    p.o_strides[2] = a.o.strides[1];
    p.heads_q = spec_.headsKV;
    p.seq_q = group;
  }

  Grid g = grid(a.batch, a.seqQ);
  void *args[] = {&p};
  Driver *driver = *Driver::get();
  if (Status s = driver->launch(*fn, g.x * p.num_splits, g.y, g.z, spec_.threads,
                                spec_.sharedBytes, stream, args);
      !s || p.num_splits == 1)
    return s;
  constexpr int kRowsPerBlock = kCombineThreads / 32;
  void *combineArgs[] = {&combineParams};
  return driver->launch(combine_,
                        static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock),
                        1, 1, kCombineThreads, 0, stream, combineArgs);
}

Status Kernel::validate(const GraphArgs &a) const {
  if (spec_.kind != KernelKind::GraphOp)
    return invalid("kernel " + spec_.name + " is not a graph op; launch it with " +
                   (spec_.kind == KernelKind::Flash ? "FlashArgs" : "BackwardArgs"));
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

Status Kernel::launch(const GraphArgs &a, Stream stream) {
  if (Status s = validate(a); !s)
    return s;
  Result<void *> fn = function();
  if (!fn)
    return fn.status();
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
  return (*Driver::get())
      ->launch(*fn, spec_.grid[0], spec_.grid[1], spec_.grid[2], spec_.threads,
               spec_.sharedBytes, stream, args);
}

} // namespace attn
