//===- Context.cpp - The JIT: build and launch kernels --------------------===//

#include "attn/Runtime/Context.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Runtime/Log.h"
#include "attn/Runtime/Nvrtc.h"
#include "TensorChecks.h"
#include "TmaView.h"
#include "attn/Runtime/Templates.h"

#include "attn/params.h"

#include <cuda.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  context->cache_ = std::make_shared<Cache>(directory);
  return context;
}

/// Writes the source, NVRTC log and cubin of a kernel under $ATTN_DUMP_DIR,
/// creating the folder (cuobjdump --dump-sass reads the cubin). Dumps asked
/// for that cannot be written are an error, not a run that silently dumps
/// nothing.
static Status dumpIfAsked(const KernelSpec &spec, const NvrtcOutput *output) {
  const char *dir = std::getenv("ATTN_DUMP_DIR");
  if (!dir)
    return Status::ok();
  if (!*dir)
    return Status(StatusCode::InvalidArgument,
                  "ATTN_DUMP_DIR is set but empty; name a folder or unset it");
  if (Status made = makeDirectories(dir, "ATTN_DUMP_DIR folder"); !made)
    return made;
  std::string base = std::string(dir) + "/" + spec.name;
  auto write = [&](const std::string &path, const std::string &bytes) {
    std::ofstream file(path, std::ios::binary);
    file << bytes;
    file.close();
    if (!file)
      return Status(StatusCode::IoError, "ATTN_DUMP_DIR: cannot write " + path +
                                             ": " + std::strerror(errno));
    return Status::ok();
  };
  if (Status written = write(base + ".cu", spec.source); !written)
    return written;
  if (!output)
    return Status::ok();
  if (Status written = write(base + ".log", output->log); !written)
    return written;
  if (Status written = write(base + ".cubin", output->cubin); !written)
    return written;
  if (!output->ptx.empty())
    return write(base + ".ptx", output->ptx);
  return Status::ok();
}

Result<std::shared_ptr<Kernel>> Context::build(const KernelSpec &spec) {
  return build(arch_, *cache_, spec);
}

Kernel::DeferredBuild Context::deferBuild(KernelSpec spec) const {
  return [arch = arch_, cache = cache_, spec = std::move(spec)] {
    return build(arch, *cache, spec);
  };
}

Result<std::shared_ptr<Kernel>>
Context::build(const std::string &arch, Cache &cache, const KernelSpec &spec) {
  auto start = std::chrono::steady_clock::now();
  // wgmma and setmaxnreg exist only on the arch-specific sm_90a target.
  bool archSpecific = false;
  std::string_view summary;
  if (spec.kind == KernelKind::FlashBackward) {
    if (const BackwardKernelVariant *variant =
            findBackwardKernelVariant(spec.variant)) {
      archSpecific = variant->archSpecific;
      summary = variant->summary;
    }
  } else if (const KernelVariant *variant = findKernelVariant(spec.variant)) {
    archSpecific = variant->archSpecific;
    summary = variant->summary;
  }
  if (archSpecific && arch != "sm_90a")
    return Status(StatusCode::Unsupported,
                  "kernel " + spec.name + " uses the " + spec.variant +
                      " variant (" + std::string(summary) +
                      "), which needs sm_90a; this context targets " + arch);
  Result<Nvrtc *> nvrtc = Nvrtc::get();
  if (!nvrtc)
    return nvrtc.status();
  std::string options;
  for (const std::string &option : Nvrtc::compileOptions(arch))
    options += option + " ";
  std::string key = makeCacheKey(
      spec.name + "_" + arch,
      {spec.source, options, arch, (*nvrtc)->version(), templatesDigest()});

  std::shared_ptr<Kernel> kernel(new Kernel());
  kernel->spec_ = spec;
  kernel->arch_ = arch;
  kernel->cacheKey_ = key;
  if (Status dumped = dumpIfAsked(spec, nullptr); !dumped)
    return dumped;
  auto compile = [&]() -> Result<CacheEntry> {
    Result<NvrtcOutput> out =
        (*nvrtc)->compile(spec.source, spec.name + ".cu", spec.name, arch);
    if (!out)
      return out.status();
    if (Status dumped = dumpIfAsked(spec, &*out); !dumped)
      return dumped;
    CacheEntry entry;
    entry.cubin = std::move(out->cubin);
    entry.log = std::move(out->log);
    entry.ptxas = out->ptxas;
    return entry;
  };
  Result<std::shared_ptr<const CacheEntry>> entry =
      cache.getOrCompile(key, compile, kernel->outcome_);
  if (!entry)
    return entry.status();
  kernel->entry_ = *entry;
  kernel->buildMs_ = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  if (logEnabled()) {
    char line[96];
    std::snprintf(line, sizeof(line), " for %s in %.1f ms (cache: %s)",
                  arch.c_str(), kernel->buildMs_,
                  cacheOutcomeName(kernel->outcome_));
    log("built " + spec.name + line);
  }
  FlashParams &p = *kernel->baseParams_;
  p.heads_q = spec.headsQ;
  p.heads_kv = spec.headsKV;
  p.window_left = spec.windowLeft;
  p.window_right = spec.windowRight;
  p.scale = spec.scale;
  p.scale_log2 = spec.scale * 1.4426950408889634f;
  return kernel;
}

Kernel::Kernel() : baseParams_(new FlashParams()) {}

bool Kernel::persistent() const {
  const KernelVariant *variant = findKernelVariant(spec_.variant);
  return spec_.kind == KernelKind::Flash && variant && variant->persistent;
}

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

bool Kernel::packsQueryHeads(int seqQ) const {
  return rowPacking(seqQ).packed();
}

RowPacking Kernel::rowPacking(int seqQ) const {
  RowPacking packing;
  if (spec_.kind != KernelKind::Flash || spec_.headsKV < 1)
    return packing;
  if (spec_.packGroup > 1) {
    // Compiled for it: (token, head) rows under any mask.
    packing.group = spec_.packGroup;
    packing.tokens = true;
  } else if (seqQ == 1 && !spec_.varlen && spec_.headsQ > spec_.headsKV &&
             !spec_.causal && !spec_.window && !spec_.keep && !spec_.bias &&
             !spec_.scoreMod) {
    packing.group = spec_.headsQ / spec_.headsKV;
  }
  return packing;
}

TileSchedule Kernel::schedule(int batch, int seqQ, int splits) const {
  // Ragged: one run of m-blocks per head over every sequence (a bound of
  // their count; the kernel finds each block's sequence).
  if (spec_.varlen)
    return makeTileSchedule(1, spec_.headsQ,
                            varlenMBlocks(batch, seqQ, spec_.blockM) *
                                spec_.blockM,
                            spec_.blockM, splits, spec_.causal || spec_.window);
  const RowPacking packing = rowPacking(seqQ);
  return makeTileSchedule(batch, packing.packed() ? spec_.headsKV : spec_.headsQ,
                          packing.rows(seqQ), spec_.blockM, splits,
                          spec_.causal || spec_.window);
}

Kernel::Grid Kernel::grid(int batch, int seqQ) const {
  Grid g;
  if (spec_.kind == KernelKind::GraphOp) {
    g.x = spec_.grid[0];
    g.y = spec_.grid[1];
    g.z = spec_.grid[2];
    return g;
  }
  // One block per work tile, decoded by the kernel with the same schedule.
  g.x = static_cast<unsigned>(schedule(batch, seqQ, 1).numTiles());
  g.y = g.z = 1;
  return g;
}

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
  if (spec_.kind == KernelKind::Flash) {
    Result<void *> combine =
        driver->getFunction(*module, spec_.name + "_combine");
    if (!combine)
      return fail(combine.status());
    loaded->combine = *combine;
    Result<int> resident =
        driver->occupancy(*fn, spec_.threads, spec_.sharedBytes);
    if (!resident)
      return fail(resident.status());
    loaded->residentPerSm = std::max(*resident, 1);
  }
  if (spec_.kind == KernelKind::FlashBackward) {
    for (auto [suffix, slot] :
         {std::pair<const char *, void **>{"_pre", &loaded->backwardPre},
          {"_dq", &loaded->backwardDq},
          {"_convert", &loaded->backwardConvert}}) {
      Result<void *> aux = driver->getFunction(*module, spec_.name + suffix);
      if (!aux)
        return fail(aux.status());
      *slot = *aux;
    }
    if (spec_.sinks) {
      Result<void *> sinks = driver->getFunction(*module, spec_.name + "_sinks");
      if (!sinks)
        return fail(sinks.status());
      loaded->backwardSinks = *sinks;
    }
    if (spec_.backwardDqSharedBytes > info.maxSharedPerBlockOptin)
      return fail(Status(StatusCode::Unsupported,
                         "kernel " + spec_.name + "_dq needs " +
                             std::to_string(spec_.backwardDqSharedBytes) +
                             " bytes of shared memory; " + info.name +
                             " allows " +
                             std::to_string(info.maxSharedPerBlockOptin)));
    if (Status s = driver->setDynamicShared(loaded->backwardDq,
                                            spec_.backwardDqSharedBytes);
        !s)
      return fail(s);
  }
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

/// Key tiles of one batch-invariant split of `spec`'s kernel.
static int invariantSplitTiles(const KernelSpec &spec) {
  return (Kernel::kInvariantSplitKeys + spec.blockN - 1) / spec.blockN;
}

/// The splits of a batch-invariant launch: enough for seqKV keys at the
/// fixed positions, at least two (every sequence goes through the merge),
/// more if asked for.
static int invariantSplits(const KernelSpec &spec, const FlashArgs &a) {
  const int64_t keysPerSplit = int64_t(invariantSplitTiles(spec)) * spec.blockN;
  const int64_t needed = (int64_t(a.seqKV) + keysPerSplit - 1) / keysPerSplit;
  return static_cast<int>(std::min<int64_t>(
      std::max<int64_t>({2, needed, a.splits}), Kernel::kMaxInvariantSplits));
}

Result<int> Kernel::splitsIn(Loaded &loaded, const FlashArgs &a) const {
  if (a.batchInvariant)
    return invariantSplits(spec_, a);
  if (a.splits > 0)
    return std::min(a.splits, kMaxSplits);
  // A few hundred instructions: cheaper than a lock around a memo.
  long long blocks = schedule(a.batch, a.seqQ, 1).numTiles();
  // A ragged batch's longest sequence, where the caller knows it; else
  // every key could be one sequence's.
  int keys = spec_.varlen && a.maxSeqlenK > 0 ? std::min(a.maxSeqlenK, a.seqKV)
                                              : a.seqKV;
  int tiles = (keys + spec_.blockN - 1) / spec_.blockN;
  int splits = chooseSplits(blocks, tiles, loaded.device->multiprocessors,
                            loaded.residentPerSm);
  return splits;
}

/// Rows of [batch, headsQ, seqQ] (a ragged batch's [headsQ, seqQ]): the
/// logsumexp's, what the splits write and the merge reads.
static size_t lseRows(const KernelSpec &spec, const FlashArgs &a) {
  return static_cast<size_t>(spec.varlen ? 1 : a.batch) * spec.headsQ * a.seqQ;
}

/// Bytes of the partial outputs and logsumexps of `splits` splits.
static size_t splitWorkspaceBytes(const KernelSpec &spec, const FlashArgs &a,
                                  int splits) {
  if (splits <= 1)
    return 0;
  return sizeof(float) * size_t(splits) * lseRows(spec, a) * (spec.headDimV + 1);
}

unsigned Kernel::persistentBlocks(const Loaded &loaded, long long tiles) {
  const long long slots = static_cast<long long>(loaded.device->multiprocessors) *
                          std::max(loaded.residentPerSm, 1);
  return static_cast<unsigned>(std::max<long long>(std::min(tiles, slots), 1));
}

Kernel::ForwardWorkspace Kernel::forwardWorkspace(const Loaded &loaded,
                                                const FlashArgs &a,
                                                int splits) const {
  ForwardWorkspace w;
  w.splitBytes = splitWorkspaceBytes(spec_, a, splits);
  w.bytes = w.splitBytes;
  const KernelVariant *variant = findKernelVariant(spec_.variant);
  if (variant && variant->persistent && (spec_.causal || spec_.window)) {
    // Tiles of different lengths: a block that drew short ones draws again
    // sooner. With one tile per block there is nothing to balance.
    const long long tiles = schedule(a.batch, a.seqQ, splits).numTiles();
    if (tiles > persistentBlocks(loaded, tiles)) {
      constexpr size_t kAlign = 256;
      w.counter = true;
      w.counterOffset = (w.splitBytes + kAlign - 1) / kAlign * kAlign;
      w.bytes = w.counterOffset + sizeof(int);
    }
  }
  return w;
}

Result<int> Kernel::splitsFor(const FlashArgs &a, Device device) {
  if (a.batchInvariant)
    return invariantSplits(spec_, a);
  if (a.splits > 0)
    return std::min(a.splits, kMaxSplits);
  Result<InContext> in = enterLoaded(device, nullptr, false);
  if (!in)
    return in.status();
  return splitsIn(*in->loaded, a);
}

Result<size_t> Kernel::workspaceBytes(const FlashArgs &a, Stream stream,
                                      Device device) {
  if (spec_.kind != KernelKind::Flash)
    return size_t(0);
  if (Status s = validate(a); !s)
    return s;
  Result<InContext> in = enterLoaded(device, stream, true);
  if (!in)
    return in.status();
  Result<int> splits = splitsIn(*in->loaded, a);
  if (!splits)
    return splits.status();
  return forwardWorkspace(*in->loaded, a, *splits).bytes;
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

using detail::checkCaptures;
using detail::checkDevicePointer;
using detail::checkTensor;
using detail::clampWindowBound;
using detail::invalid;
using detail::TmaView;
using detail::encodeTmaView;
using detail::tmaRowsView;

Status Kernel::validate(const FlashArgs &a) const {
  if (spec_.kind != KernelKind::Flash)
    return invalid("kernel " + spec_.name + " is not fused attention; launch it with " +
                   launchArgsName(spec_.kind));
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
  // Packed tensors of a ragged batch have no batch dimension.
  auto packed = [&](TensorArg t) {
    if (spec_.varlen)
      t.strides[0] = 0;
    return t;
  };
  if (Status s = checkTensor("q", packed(a.q), 3); !s)
    return s;
  // A transposed k is [B, H, D, S]: contiguous along the keys, its last
  // dimension, like every other operand.
  if (Status s = checkTensor("k", packed(a.k), 3); !s)
    return s;
  if (Status s = checkTensor("v", packed(a.v), 3); !s)
    return s;
  if (Status s = checkTensor("o", packed(a.o), 3); !s)
    return s;
  if (spec_.varlen && (!a.cuSeqlensQ || !a.cuSeqlensK))
    return invalid("kernel " + spec_.name +
                   " runs a ragged batch but 'cu_seqlens_q' or "
                   "'cu_seqlens_k' is null");
  if (const KernelVariant *variant = findKernelVariant(spec_.variant);
      spec_.varlen && variant && variant->persistent)
    return invalid("kernel " + spec_.name + " has a ragged batch, which the " +
                   spec_.variant + " variant does not read");
  if (!spec_.varlen && (a.cuSeqlensQ || a.cuSeqlensK))
    return invalid("'cu_seqlens_q'/'cu_seqlens_k' are set but kernel " +
                   spec_.name + " was compiled for a dense batch");
  if (spec_.paged) {
    if (!a.blockTable)
      return invalid("kernel " + spec_.name +
                     " reads a paged cache but 'block_table' is null");
    if (a.pageSize < 1 || a.numPages < 1 || a.seqKV % a.pageSize != 0 ||
        a.blockTableStride < a.seqKV / a.pageSize)
      return invalid("a paged cache needs pageSize >= 1, numPages >= 1, seqKV "
                     "a multiple of pageSize (pages per sequence x pageSize) "
                     "and blockTableStride at least the pages per sequence; "
                     "got pageSize " +
                     std::to_string(a.pageSize) + ", numPages " +
                     std::to_string(a.numPages) + ", seqKV " +
                     std::to_string(a.seqKV) + ", blockTableStride " +
                     std::to_string(a.blockTableStride));
  } else if (a.blockTable) {
    return invalid("'block_table' is set but kernel " + spec_.name +
                   " was compiled for contiguous K/V");
  }
  if (spec_.sinks != (a.sinks != nullptr))
    return invalid(spec_.sinks ? "the kernel has attention sinks but 'sinks' "
                                 "is null"
                               : "'sinks' is set but kernel " + spec_.name +
                                     " was compiled without sinks");
  if (a.maxSeqlenQ < 0 || a.maxSeqlenK < 0)
    return invalid("max_seqlen_q and max_seqlen_k must be 0 (unknown) or "
                   "positive, got " +
                   std::to_string(a.maxSeqlenQ) + " and " +
                   std::to_string(a.maxSeqlenK));
  if (spec_.writesLse && !a.lse)
    return invalid("the kernel writes logsumexp but 'lse' is null");
  if (spec_.keyPadding && !a.lengths)
    return invalid("the mask has key_padding but 'lengths' is null");
  if (spec_.keep && !a.keep.data)
    return invalid("the mask has keep but 'keep' is null");
  if (spec_.bias && !a.bias.data)
    return invalid("the mask has bias but 'bias' is null");
  if (Status s = checkCaptures(spec_, a.scoreModCaptures); !s)
    return s;
  if (a.batchInvariant && a.splits > kMaxInvariantSplits)
    return invalid("a batch-invariant launch takes at most " +
                   std::to_string(kMaxInvariantSplits) + " splits, got " +
                   std::to_string(a.splits));
  if (a.splits < 0)
    return invalid("splits must be 0 (the heuristic's), 1 or more; got " +
                   std::to_string(a.splits));
  // A spec is a value anyone can fill in: what grid() divides by and what
  // the kernel takes as int must be in range.
  if (spec_.headsQ < 1 || spec_.headsKV < 1 || spec_.headsQ % spec_.headsKV ||
      spec_.blockM < 1 || spec_.blockN < 1 || spec_.threads < 1 ||
      spec_.threads > 1024)
    return invalid("kernel " + spec_.name + " has an invalid spec: heads " +
                   std::to_string(spec_.headsQ) + "/" +
                   std::to_string(spec_.headsKV) + ", tile " +
                   std::to_string(spec_.blockM) + "x" +
                   std::to_string(spec_.blockN) + ", " +
                   std::to_string(spec_.threads) + " threads");
  // The grid as the launch computes it (grid(), times the requested
  // splits), in 64 bits: CUDA allows 2^31 - 1 blocks along x and 65535
  // along y (heads) and z (batch). A larger launch would be truncated.
  const RowPacking packing = rowPacking(a.seqQ);
  bool packedHeads = packing.packed();
  int64_t rows = packedHeads ? int64_t(packing.group) *
                                   (packing.tokens ? a.seqQ : 1)
                 : spec_.varlen
                     ? int64_t(varlenMBlocks(a.batch, a.seqQ, spec_.blockM)) *
                           spec_.blockM
                     : a.seqQ;
  int64_t gridX = (rows + spec_.blockM - 1) / spec_.blockM *
                  (a.batchInvariant ? invariantSplits(spec_, a)
                                    : std::min(std::max(a.splits, 1), kMaxSplits));
  int64_t gridY = packedHeads ? spec_.headsKV : spec_.headsQ,
          gridZ = spec_.varlen ? 1 : a.batch;
  if (gridX > 2147483647 || gridY > 65535 || gridZ > 65535)
    return invalid("the launch needs a grid of " + std::to_string(gridX) +
                   " x " + std::to_string(gridY) + " (heads) x " +
                   std::to_string(gridZ) +
                   " (batch) blocks; CUDA allows 2147483647 x 65535 x 65535");
  return Status::ok();
}

Status Kernel::checkPointers(const FlashArgs &a, int ordinal) const {
  const std::pair<const char *, const void *> pointers[] = {
      {"q", a.q.data},         {"k", a.k.data},
      {"v", a.v.data},         {"o", a.o.data},
      {"lse", a.lse},          {"lengths", a.lengths},
      {"keep", a.keep.data},   {"bias", a.bias.data},
      {"cu_seqlens_q", a.cuSeqlensQ}, {"cu_seqlens_k", a.cuSeqlensK},
      {"sinks", a.sinks}, {"block_table", a.blockTable},
      {"tileStats", a.tileStats},
      {"workspace", reinterpret_cast<const void *>(a.workspace)}};
  for (const auto &[name, pointer] : pointers)
    if (Status s = checkDevicePointer(name, pointer, ordinal); !s)
      return s;
  return Status::ok();
}

namespace {

/// q, k and v of a launch with `p`, as the tensor maps describe them;
/// packed decode rows read q as (head dim, query heads of a K/V head,
/// tokens, K/V heads, batch).
std::array<TmaView, 3> tmaViews(const KernelSpec &spec, const FlashParams &p) {
  TmaView q = tmaRowsView("q", p.q, spec.headDimQK, p.seq_q, p.heads_q,
                          p.batch, p.q_strides, spec.blockM);
  if (spec.packGroup > 1) {
    // A block's rows are token-major (token, query head) pairs of one K/V
    // head: a box of blockM / G tokens by the G heads, which land in shared
    // memory in that order.
    const int group = spec.packGroup;
    q = TmaView{"q",
                p.q,
                5,
                {uint64_t(spec.headDimQK), uint64_t(group), uint64_t(p.seq_q),
                 uint64_t(p.heads_q / group), uint64_t(p.batch)},
                {p.q_strides[1], p.q_strides[2], p.q_strides[1] * group,
                 p.q_strides[0]},
                {64, uint32_t(group), uint32_t(spec.blockM / group), 1, 1},
                {"head", "row", "head group", "batch"}};
  }
  if (spec.paged) {
    // Pages as the batch of page_size rows, read in boxes of a page (or of
    // a key tile, for pages that hold whole tiles): the kernel picks each
    // box's page from the block table.
    const int boxRows = std::min(p.page_size, spec.blockN);
    return {q,
            tmaRowsView("k", p.k, spec.headDimQK, p.page_size, p.heads_kv,
                        p.num_pages, p.k_strides, boxRows),
            tmaRowsView("v", p.v, spec.headDimV, p.page_size, p.heads_kv,
                        p.num_pages, p.v_strides, boxRows)};
  }
  return {q,
          tmaRowsView("k", p.k, spec.headDimQK, p.seq_kv, p.heads_kv, p.batch,
                      p.k_strides, spec.blockN),
          tmaRowsView("v", p.v, spec.headDimV, p.seq_kv, p.heads_kv, p.batch,
                      p.v_strides, spec.blockN)};
}

/// Why the TMA kernel cannot read `p`'s paged cache in boxes of a page, or
/// "": a box lands at a whole 8-row swizzle pattern (1024 bytes), the boxes
/// of a key tile of `blockN` keys are whole pages (or the tile a part of
/// one), pages are a power of two keys (the loaders shift, having no
/// registers to divide) and the table's entries have 32-bit offsets.
std::string pageBoxRejection(const FlashParams &p, int blockN) {
  const int size = p.page_size;
  if (size < 8 || (size & (size - 1)) != 0 ||
      (blockN % size != 0 && size % blockN != 0))
    return "pages of " + std::to_string(size) +
           " keys (TMA reads a paged cache in boxes of a page that tile the "
           "key tile of " +
           std::to_string(blockN) +
           ": pages of a power of two keys, at least 8, that divide it or "
           "that it divides)";
  if (static_cast<i64>(p.batch) * p.table_stride > 0x7fffffffLL)
    return "a block table of " +
           std::to_string(static_cast<i64>(p.batch) * p.table_stride) +
           " entries (TMA's loaders index at most 2^31 - 1)";
  return "";
}

} // namespace

std::string Kernel::tmaRejection(const FlashParams &p) const {
  if (spec_.paged)
    if (std::string why = pageBoxRejection(p, spec_.blockN);
        !why.empty())
      return why;
  for (const TmaView &t : tmaViews(spec_, p))
    if (std::string why = detail::tmaRejection(t); !why.empty())
      return why;
  return "";
}

Status Kernel::encodeTmaMaps(Driver &driver, const FlashParams &p,
                             TmaMaps &maps) const {
  const bool bf16 = spec_.element == ElementType::BF16;
  TensorMap *targets[3] = {&maps.q, &maps.k, &maps.v};
  const std::array<TmaView, 3> views = tmaViews(spec_, p);
  for (int i = 0; i < 3; ++i)
    if (Status s = encodeTmaView(driver, bf16, views[i], targets[i]); !s)
      return s;
  // The output by TMA in boxes of one consumer warpgroup's 64 rows, where
  // the kernel stages it; a view TMA cannot store leaves the threads' own
  // stores.
  const TmaView o = tmaRowsView("o", p.o, spec_.headDimV, p.seq_q, p.heads_q,
                                p.batch, p.o_strides, 64);
  maps.stages_output = spec_.packGroup == 1 &&
                       reinterpret_cast<uintptr_t>(p.o) % 16 == 0 &&
                       static_cast<bool>(encodeTmaView(driver, bf16, o, &maps.o));
  return Status::ok();
}

FlashParams Kernel::operandParams(const FlashArgs &a) const {
  FlashParams p = *baseParams_;
  p.q = a.q.data;
  p.k = a.k.data;
  p.v = a.v.data;
  p.o = const_cast<void *>(a.o.data);
  p.lse = a.lse;
  p.lengths = a.lengths;
  p.keep = static_cast<const unsigned char *>(a.keep.data);
  p.bias = a.bias.data;
  p.tile_stats = a.tileStats;
  for (int i = 0; i < kMaxScoreModCaptures; ++i)
    p.score_mod_captures[i] = a.scoreModCaptures[i];
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
  p.seq_q = a.seqQ;
  p.seq_kv = a.seqKV;
  p.cu_seqlens_q = a.cuSeqlensQ;
  p.cu_seqlens_k = a.cuSeqlensK;
  p.sinks = a.sinks;
  p.sink_strides[0] = 1; // a launch head is a query head; rows are queries
  p.sink_strides[1] = 0;
  p.block_table = a.blockTable;
  p.table_stride = a.blockTableStride;
  p.num_pages = a.numPages;
  p.page_size = a.pageSize;
  if (spec_.varlen) // packed: sequences are found by offset
    p.q_strides[0] = p.k_strides[0] = p.v_strides[0] = p.o_strides[0] = 0;
  // A ragged batch's totals bound each sequence's, so clamping the window
  // at them changes no mask either.
  p.window_left = clampWindowBound(spec_.windowLeft, a.seqQ, a.seqKV);
  p.window_right = clampWindowBound(spec_.windowRight, a.seqQ, a.seqKV);
  return p;
}

void Kernel::packQueryHeads(FlashParams &p, const FlashArgs &a) const {
  RowPacking packing = rowPacking(a.seqQ);
  if (!packing.packed() || packing.tokens)
    return;
  // One query per head: view q and o as [batch, headsKV, group, dim], whose
  // rows are heads (stride of a head). The logsumexp, [batch, headsQ, 1],
  // has the same layout either way.
  const int group = packing.group;
  p.q_strides[1] = a.q.strides[1] * group;
  p.q_strides[2] = a.q.strides[1];
  p.o_strides[1] = a.o.strides[1] * group;
  p.o_strides[2] = a.o.strides[1];
  p.heads_q = spec_.headsKV;
  p.seq_q = group;
  p.sink_strides[0] = group;
  p.sink_strides[1] = 1;
}

Status Kernel::enqueueAttention(Driver &driver, Loaded &loaded,
                                const FlashArgs &a, Stream stream,
                                const TmaMaps *maps, CombineLaunch &combine) {
  if (Status s = checkPointers(a, loaded.ordinal); !s)
    return s;
  FlashParams p = operandParams(a);
  Result<int> splits = splitsIn(loaded, a);
  if (!splits)
    return splits.status();
  p.schedule = schedule(a.batch, a.seqQ, *splits);
  p.split_tiles = a.batchInvariant ? invariantSplitTiles(spec_) : 0;
  // One block per work tile; CUDA's grid takes at most 2^31 - 1 along x.
  if (p.schedule.numTiles() > 0x7fffffffLL)
    return invalid("the launch has " + std::to_string(p.schedule.numTiles()) +
                   " work tiles (batch " + std::to_string(a.batch) +
                   " x heads x query blocks x splits); CUDA allows 2147483647 "
                   "blocks");
  const size_t rows = lseRows(spec_, a);
  const ForwardWorkspace workspace = forwardWorkspace(loaded, a, *splits);
  if (*splits > 1) {
    // The caller's memory: a launch neither allocates nor synchronizes.
    size_t needed = workspace.splitBytes;
    if (!a.workspace || a.workspaceBytes < needed)
      return invalid("kernel " + spec_.name + " splits this launch " +
                     std::to_string(*splits) + " ways and needs " +
                     std::to_string(needed) + " bytes of workspace; got " +
                     std::to_string(a.workspace ? a.workspaceBytes : 0) +
                     " (FlashArgs::workspace, sized by "
                     "KernelGroup::workspaceBytes; or splits = 1)");
    p.partial_o = reinterpret_cast<float *>(a.workspace);
    p.partial_lse = p.partial_o + *splits * rows * spec_.headDimV;
    // The merge reads the rows unpacked.
    constexpr int kRowsPerBlock = kCombineThreads / 32;
    combine.params = p;
    combine.blocks =
        static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  }
  packQueryHeads(p, a);
  if (!persistent()) {
    void *args[] = {&p};
    return driver.launch(loaded.function,
                         static_cast<unsigned>(p.schedule.numTiles()), 1, 1,
                         spec_.threads, spec_.sharedBytes, stream, args);
  }
  if (!maps)
    return invalid("kernel " + spec_.name +
                   " reads q, k and v by TMA and was launched without their "
                   "tensor maps (launch it through its KernelGroup)");
  // One block per SM loops over the work tiles.
  const unsigned blocks = persistentBlocks(loaded, p.schedule.numTiles());
  p.schedule.sectionPairs = persistentSectionPairs(p.schedule, blocks);
  // The dynamic scheduler's counter starts at 0 in stream order (a
  // workspace sized before this release has no room: static order).
  if (workspace.counter && a.workspace && a.workspaceBytes >= workspace.bytes) {
    const DevicePtr counter = a.workspace + workspace.counterOffset;
    if (Status s = driver.fillWordsAsync(counter, 0, 1, stream); !s)
      return s;
    p.tile_counter = reinterpret_cast<int *>(counter);
  }
  TmaMaps tensorMaps = *maps;
  void *args[] = {&p, &tensorMaps};
  return driver.launch(loaded.function, blocks, 1, 1, spec_.threads,
                       spec_.sharedBytes, stream, args);
}

Status Kernel::enqueueCombine(Driver &driver, const Loaded &loaded,
                              CombineLaunch &combine, Stream stream) const {
  void *args[] = {&combine.params};
  return driver.launch(loaded.combine, combine.blocks, 1, 1, kCombineThreads, 0,
                       stream, args);
}
Status Kernel::validate(const GraphArgs &a) const {
  if (spec_.kind != KernelKind::GraphOp)
    return invalid("kernel " + spec_.name + " is not a graph op; launch it with " +
                   launchArgsName(spec_.kind));
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

Status Kernel::launch(const GraphArgs &a, Stream stream, Device device) {
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
