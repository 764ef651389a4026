//===- Context.cpp - The JIT: build kernels ------------------------------===//

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

/// An empty kernel of `kind`'s type, for build to fill.
static std::shared_ptr<Kernel> makeKernel(KernelKind kind) {
  switch (kind) {
  case KernelKind::Flash:
    return std::make_shared<FlashKernel>();
  case KernelKind::FlashBackward:
    return std::make_shared<BackwardKernel>();
  case KernelKind::GraphOp:
    return std::make_shared<GraphKernel>();
  case KernelKind::CacheAppend:
    return std::make_shared<CacheAppendKernel>();
  }
  return nullptr;
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

  std::shared_ptr<Kernel> kernel = makeKernel(spec.kind);
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
  return kernel;
}


} // namespace attn
