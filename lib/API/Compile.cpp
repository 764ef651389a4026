//===- Compile.cpp - MLIR to kernels for the C++ API ----------------------===//

#include "attn/attn.h"
#include "attn/API/CompileModule.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Runtime/Log.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Support/Dialects.h"
#include "attn/Support/ParallelFor.h"
#include "attn/Support/Parser.h"
#include "attn/Target/Cuda/EmitCuda.h"
#include "attn/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace attn {

namespace {

/// Prints the first file:line:col inside `loc` (fused locations hold
/// several), or the location as MLIR prints it.
void printLocation(llvm::raw_ostream &os, mlir::Location loc) {
  std::optional<mlir::FileLineColLoc> fileLoc;
  loc->walk([&](mlir::Location inner) {
    if (auto flc = mlir::dyn_cast<mlir::FileLineColLoc>(inner)) {
      fileLoc = flc;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  if (fileLoc)
    os << fileLoc->getFilename().getValue() << ":" << fileLoc->getLine() << ":"
       << fileLoc->getColumn();
  else
    os << loc;
}

/// Collects diagnostics as "file:line:col: severity: message" lines.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          std::string text;
          llvm::raw_string_ostream os(text);
          printLocation(os, diag.getLocation());
          os << ": ";
          switch (diag.getSeverity()) {
          case mlir::DiagnosticSeverity::Error: os << "error: "; break;
          case mlir::DiagnosticSeverity::Warning: os << "warning: "; break;
          case mlir::DiagnosticSeverity::Remark: os << "remark: "; break;
          case mlir::DiagnosticSeverity::Note: os << "note: "; break;
          }
          os << diag.str();
          (diag.getSeverity() == mlir::DiagnosticSeverity::Remark ? remarks
                                                                  : errors)
              .push_back(text);
          return mlir::success();
        }) {}

  std::string joinedErrors() const {
    std::string all;
    for (const std::string &e : errors)
      all += (all.empty() ? "" : "\n") + e;
    return all.empty() ? "unknown error" : all;
  }

  std::vector<std::string> errors, remarks;

private:
  mlir::ScopedDiagnosticHandler handler;
};

/// Spilled bytes, stores and loads, as attn-run's table and
/// attn_kernel_info count them.
int spillBytes(const Kernel &kernel) {
  const PtxasReport &r = kernel.ptxas();
  return r.parsed ? r.spillStoreBytes + r.spillLoadBytes : 0;
}

/// Of the builds of narrower tiles (most keys first; spills grow with the
/// keys per tile), the first whose kernel does not spill. They compile a
/// batch at a time, as many as there are cores (at least two): the answer
/// is most often the first or second, and one batch costs about one
/// compile. Returns its index and kernel, or -1 and null if every kernel
/// spills. Each build must be safe to run on its own thread (its spec
/// emitted already).
std::pair<int, std::shared_ptr<Kernel>>
mostKeysWithoutSpills(const std::vector<Kernel::DeferredBuild> &narrower) {
  const size_t batch = std::max(2u, defaultThreads());
  for (size_t first = 0; first < narrower.size(); first += batch) {
    const size_t count = std::min(batch, narrower.size() - first);
    std::vector<std::shared_ptr<Kernel>> built(count);
    parallelFor(count, [&](size_t i) {
      Result<std::shared_ptr<Kernel>> kernel = narrower[first + i]();
      if (kernel && spillBytes(**kernel) == 0)
        built[i] = *kernel;
    }, static_cast<unsigned>(batch));
    for (size_t i = 0; i < count; ++i)
      if (built[i])
        return {static_cast<int>(first + i), built[i]};
  }
  return {-1, nullptr};
}

/// Builds `specs` on one thread per core, each result at its spec's index:
/// NVRTC and ptxas take about a second per kernel, and the kernels of one
/// module (a training step's forward and backward, the unfused path's graph
/// ops, a dynamic length's two tile sets) do not depend on each other. The
/// context's cache compiles each key once across threads.
std::vector<std::optional<Result<std::shared_ptr<Kernel>>>>
buildAll(Context &context, const std::vector<KernelSpec> &specs) {
  std::vector<std::optional<Result<std::shared_ptr<Kernel>>>> built(
      specs.size());
  parallelFor(specs.size(),
              [&](size_t i) { built[i].emplace(context.build(specs[i])); });
  return built;
}

/// The spec of `flash` under `config`, the op's own config left as it was.
mlir::FailureOr<KernelSpec> emitWithConfig(mlir::attn::FlashOp flash,
                                           mlir::attn::ConfigAttr config) {
  mlir::attn::ConfigAttr own = flash.getConfigAttr();
  flash.setConfigAttr(config);
  mlir::FailureOr<KernelSpec> spec = mlir::attn::emitFlashKernel(flash);
  flash.setConfigAttr(own);
  return spec;
}

/// A persistent (TMA) kernel gets the cp.async kernel that the cost model
/// picks for the same attention: emitted now, compiled by the first launch
/// whose operands TMA cannot read (Kernel::setCpAsyncFallback). Where that
/// kernel spills, the build goes on as avoidSpills does, over specs of
/// narrower key tiles emitted now (the op is gone by then).
Status attachCpAsyncFallback(Context &context, mlir::attn::FlashOp flash,
                             Kernel &kernel,
                             const DiagnosticCollector &diagnostics) {
  const KernelVariant *variant = findKernelVariant(kernel.spec().variant);
  std::optional<mlir::attn::ArchInfo> arch =
      mlir::attn::lookupArch(context.arch());
  if (!variant || !variant->persistent || !arch)
    return Status::ok();
  mlir::attn::ConfigAttr cpAsync =
      mlir::attn::selectCpAsyncConfig(flash, *arch);
  if (!cpAsync) // such launches are errors that say why
    return Status::ok();
  mlir::FailureOr<KernelSpec> spec = emitWithConfig(flash, cpAsync);
  if (mlir::failed(spec))
    return Status(StatusCode::Unsupported, diagnostics.joinedErrors());
  std::vector<Kernel::DeferredBuild> narrower;
  {
    mlir::attn::ConfigAttr own = flash.getConfigAttr();
    flash.setConfigAttr(cpAsync);
    llvm::SmallVector<mlir::attn::ConfigAttr> configs =
        mlir::attn::narrowerKeyTiles(flash, *arch);
    flash.setConfigAttr(own);
    for (mlir::attn::ConfigAttr config : configs) {
      mlir::FailureOr<KernelSpec> narrowSpec = emitWithConfig(flash, config);
      if (mlir::succeeded(narrowSpec))
        narrower.push_back(context.deferBuild(std::move(*narrowSpec)));
    }
  }
  const std::string name = spec->name;
  Kernel::DeferredBuild chosen = context.deferBuild(std::move(*spec));
  kernel.setCpAsyncFallback(
      name, [chosen = std::move(chosen), narrower = std::move(narrower),
             name]() -> Result<std::shared_ptr<Kernel>> {
        Result<std::shared_ptr<Kernel>> built = chosen();
        const int spilled = built ? spillBytes(**built) : 0;
        if (spilled == 0 || narrower.empty())
          return built;
        auto [index, best] = mostKeysWithoutSpills(narrower);
        if (!best)
          return built;
        if (logEnabled())
          log("remark: ptxas spilled " + std::to_string(spilled) +
              " bytes in the cp.async kernel " + name + "; compiled " +
              best->spec().name + " (block_n " +
              std::to_string(best->spec().blockN) + "), which does not spill");
        return best;
      });
  return Status::ok();
}

/// The arch whose model picks another config for a kernel that spilled
/// `spilled` bytes; none if it did not spill or the arch has no model.
std::optional<mlir::attn::ArchInfo> archToRespill(const Context &context,
                                                  int spilled) {
  if (spilled == 0)
    return std::nullopt;
  return mlir::attn::lookupArch(context.arch());
}

/// Where ptxas spills a kernel whose tiles the cost model chose, the same
/// variant with fewer keys per tile (narrowerKeyTiles), the most that do not
/// spill (mostKeysWithoutSpills); a remark on the op says so. The register
/// models count a score_mod as a fixed amount of element-wise work, and
/// captured tensors' loads or a long region push its tiles over
/// (test/Target/Cuda/ptxas-score-mod.test). If every kernel tried spills,
/// the model's stays. `kernel` is the op's config's (for the tiles of long
/// keys, that config is set on the op while this runs; `role` names them
/// in the remark).
Status avoidSpills(Context &context, mlir::attn::FlashOp flash,
                   std::shared_ptr<Kernel> &kernel, llvm::StringRef role = "") {
  const int spilled = spillBytes(*kernel);
  std::optional<mlir::attn::ArchInfo> arch = archToRespill(context, spilled);
  if (!arch)
    return Status::ok();
  mlir::attn::ConfigAttr chosen = flash.getConfigAttr();
  llvm::SmallVector<mlir::attn::ConfigAttr> narrower =
      mlir::attn::narrowerKeyTiles(flash, *arch); // most keys first
  // Emitted here, one by one (emission sets the op's config); compiled in
  // parallel.
  std::vector<Kernel::DeferredBuild> builds;
  for (mlir::attn::ConfigAttr config : narrower) {
    mlir::FailureOr<KernelSpec> spec = emitWithConfig(flash, config);
    if (mlir::succeeded(spec))
      builds.push_back(context.deferBuild(std::move(*spec)));
    else
      builds.push_back(
          [] { return Result<std::shared_ptr<Kernel>>(Status(
                   StatusCode::Unsupported, "not emitted")); });
  }
  auto [index, best] = mostKeysWithoutSpills(builds);
  if (!best)
    return Status::ok();
  mlir::attn::ConfigAttr bestConfig = narrower[index];
  flash.setConfigAttr(bestConfig);
  flash.emitRemark() << "ptxas spilled " << spilled << " bytes at "
                     << chosen.getBlockM() << "x" << chosen.getBlockN() << " ("
                     << chosen.getVariant() << ")" << role
                     << "; compiled with block_n "
                     << bestConfig.getBlockN() << ", which does not spill";
  kernel = best;
  return Status::ok();
}

/// A backward kernel of the model's config that spills: the config the
/// model picks without that variant (the warp-specialized one's consumers
/// have 240 registers, and the element-wise work of some masks takes more
/// than its model counts), where that kernel does not spill. If it spills
/// too, the model's stays.
Status avoidBackwardSpills(Context &context, mlir::attn::FlashBwdOp backward,
                           std::shared_ptr<Kernel> &kernel) {
  const int spilled = spillBytes(*kernel);
  std::optional<mlir::attn::ArchInfo> arch = archToRespill(context, spilled);
  if (!arch)
    return Status::ok();
  mlir::attn::BackwardConfigAttr chosen = backward.getConfigAttr();
  mlir::attn::BackwardConfigAttr other =
      mlir::attn::selectBackwardConfigWithout(backward, *arch,
                                              chosen.getVariant());
  if (!other)
    return Status::ok();
  backward.setConfigAttr(other);
  mlir::FailureOr<KernelSpec> spec =
      mlir::attn::emitFlashBackwardKernel(backward);
  Result<std::shared_ptr<Kernel>> retry =
      mlir::succeeded(spec) ? context.build(*spec)
                            : Result<std::shared_ptr<Kernel>>(
                                  Status(StatusCode::Unsupported, "not emitted"));
  if (!retry || spillBytes(**retry) != 0) {
    backward.setConfigAttr(chosen);
    return Status::ok();
  }
  backward.emitRemark() << "ptxas spilled " << spilled
                        << " bytes in backward variant " << chosen.getVariant()
                        << "; compiled with backward variant "
                        << other.getVariant() << " (" << other.getBlockM()
                        << "x" << other.getBlockN() << "x"
                        << other.getNumWarps() << "x" << other.getStages()
                        << "), which does not spill";
  kernel = *retry;
  return Status::ok();
}

} // namespace

void registerAttnDialects(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

Result<CompiledModule> compileModule(Context &context, mlir::ModuleOp module,
                                     const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  DiagnosticCollector diagnostics(*module.getContext());
  CompiledModule compiled;
  if (options.backward && (!options.runPipeline || options.unfused))
    return Status(StatusCode::InvalidArgument,
                  "the backward is derived from fused attention: it needs "
                  "the pipeline and no 'unfused'");
  // Tiles the input (a written #attn.config) or the options fix are kept
  // even where they spill.
  llvm::SmallPtrSet<mlir::Operation *, 4> givenTiles;
  module.walk([&](mlir::attn::FlashOp op) {
    if (op.getConfig())
      givenTiles.insert(op);
  });
  const bool tilesForced =
      options.blockM || options.blockN || options.numWarps || options.stages;
  // Likewise a backward's written #attn.backward_config or the options'
  // backward variant or tiles.
  llvm::SmallPtrSet<mlir::Operation *, 4> givenBackwardConfigs;
  module.walk([&](mlir::attn::FlashBwdOp op) {
    if (op.getConfig())
      givenBackwardConfigs.insert(op);
  });
  const bool backwardForced =
      !options.backwardVariant.empty() || !options.backwardTiles.empty();
  if (options.runPipeline) {
    if (!options.unfused && !mlir::attn::lookupArch(context.arch()))
      return Status(StatusCode::Unsupported,
                    mlir::attn::unsupportedArchMessage(context.arch()));
    mlir::PassManager pm(module.getContext());
    mlir::attn::buildAttnPipeline(
        pm, mlir::attn::makeAttnPipelineOptions(context.arch(), options));
    if (mlir::failed(pm.run(module)))
      return Status(StatusCode::Unsupported, diagnostics.joinedErrors());
  }
  // Fused attention and the graph-op kernels of the unfused path, in order.
  std::vector<mlir::Operation *> kernelOps;
  module.walk([&](mlir::Operation *op) {
    if (mlir::isa<mlir::attn::FlashOp, mlir::attn::FlashBwdOp,
                  mlir::attn::KernelOp>(op))
      kernelOps.push_back(op);
  });
  if (kernelOps.empty()) {
    std::string why = "the module has no attn.flash, attn.flash_bwd or "
                      "attn.kernel to compile";
    for (const std::string &remark : diagnostics.remarks)
      why += "\n" + remark;
    return Status(StatusCode::Unsupported, why);
  }
  // A hand-written config has not met the resource model yet: the verifier
  // cannot know the GPU, but the context does.
  if (std::optional<mlir::attn::ArchInfo> arch =
          mlir::attn::lookupArch(context.arch()))
    for (mlir::Operation *op : kernelOps) {
      mlir::LogicalResult fits = mlir::success();
      if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op))
        fits = mlir::attn::verifyConfigFits(flash, *arch);
      else if (auto backward = mlir::dyn_cast<mlir::attn::FlashBwdOp>(op))
        fits = mlir::attn::verifyConfigFits(backward, *arch);
      if (mlir::failed(fits))
        return Status(StatusCode::Unsupported, diagnostics.joinedErrors());
    }
  // Every kernel is emitted first and compiled together (buildAll); the
  // fixes below (spills, long keys) then go op by op. A dynamic length's
  // long-key kernel is compiled with the others too: the step below that
  // builds it finds it in the cache.
  std::vector<KernelSpec> specs;
  for (mlir::Operation *op : kernelOps) {
    mlir::FailureOr<KernelSpec> spec;
    if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op))
      spec = mlir::attn::emitFlashKernel(flash);
    else if (auto backward = mlir::dyn_cast<mlir::attn::FlashBwdOp>(op))
      spec = mlir::attn::emitFlashBackwardKernel(backward);
    else
      spec = mlir::attn::emitGraphKernel(mlir::cast<mlir::attn::KernelOp>(op));
    if (mlir::failed(spec))
      return Status(StatusCode::Unsupported, diagnostics.joinedErrors());
    specs.push_back(std::move(*spec));
  }
  std::vector<int> longSpecIndex(kernelOps.size(), -1);
  for (size_t i = 0; i < kernelOps.size(); ++i)
    if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(kernelOps[i]))
      if (auto longConfig = flash->getAttrOfType<mlir::attn::ConfigAttr>(
              kLongKeysConfigAttr)) {
        std::optional<mlir::attn::ArchInfo> arch =
            mlir::attn::lookupArch(context.arch());
        mlir::attn::ConfigAttr config = flash.getConfigAttr();
        flash.setConfigAttr(longConfig);
        // Errors are reported (once) where the kernel is built below.
        mlir::ScopedDiagnosticHandler quiet(
            module.getContext(), [](mlir::Diagnostic &) { return mlir::success(); });
        if (!arch || mlir::succeeded(mlir::attn::verifyConfigFits(flash, *arch)))
          if (mlir::FailureOr<KernelSpec> longSpec =
                  mlir::attn::emitFlashKernel(flash);
              mlir::succeeded(longSpec)) {
            longSpecIndex[i] = static_cast<int>(specs.size());
            specs.push_back(std::move(*longSpec));
          }
        flash.setConfigAttr(config);
      }
  auto finish = [&]() -> CompiledModule {
    compiled.remarks = diagnostics.remarks;
    if (logEnabled())
      for (const std::string &remark : compiled.remarks)
        log(remark);
    llvm::raw_string_ostream irStream(compiled.loweredIR);
    module.print(irStream);
    compiled.pipelineMs = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    return std::move(compiled);
  };
  // Emitted, not built: the pipeline and the emitters only (a CPU check of
  // the IR, attn-run --no-compile). The cp.async fallbacks of persistent
  // kernels, emitted once their kernel is built, are not.
  if (!options.compileKernels) {
    compiled.emitted = std::move(specs);
    return finish();
  }
  std::vector<std::optional<Result<std::shared_ptr<Kernel>>>> built =
      buildAll(context, specs);
  for (size_t i = 0; i < kernelOps.size(); ++i) {
    mlir::Operation *op = kernelOps[i];
    Result<std::shared_ptr<Kernel>> kernel = std::move(*built[i]);
    if (!kernel)
      return kernel.status();
    const bool modelTiles = !tilesForced && !givenTiles.contains(op);
    if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op); flash && modelTiles)
      if (Status s = avoidSpills(context, flash, *kernel); !s)
        return s;
    if (auto backward = mlir::dyn_cast<mlir::attn::FlashBwdOp>(op);
        backward && !backwardForced && !givenBackwardConfigs.contains(op))
      if (Status s = avoidBackwardSpills(context, backward, *kernel); !s)
        return s;
    // A dynamic key length with other tiles for long keys: their kernel
    // too, which the first one's launches hand long key lengths to.
    if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op))
      if (auto longConfig = flash->getAttrOfType<mlir::attn::ConfigAttr>(
              kLongKeysConfigAttr)) {
        // Checked like the first (the attribute may be hand-written).
        mlir::attn::ConfigAttr config = flash.getConfigAttr();
        flash.setConfigAttr(longConfig);
        std::optional<mlir::attn::ArchInfo> arch =
            mlir::attn::lookupArch(context.arch());
        mlir::FailureOr<KernelSpec> longSpec = mlir::failure();
        if (!arch || mlir::succeeded(mlir::attn::verifyConfigFits(flash, *arch)))
          longSpec = mlir::attn::emitFlashKernel(flash);
        Result<std::shared_ptr<Kernel>> longKernel =
            mlir::failed(longSpec)
                ? Result<std::shared_ptr<Kernel>>(Status(
                      StatusCode::Unsupported, diagnostics.joinedErrors()))
            // Compiled with the others unless the op changed since.
            : longSpecIndex[i] >= 0 &&
                    specs[longSpecIndex[i]].source == longSpec->source
                ? std::move(*built[longSpecIndex[i]])
                : context.build(*longSpec);
        Status spills = Status::ok();
        if (longKernel && modelTiles)
          spills = avoidSpills(context, flash, *longKernel, " for long keys");
        longConfig = flash.getConfigAttr();
        flash.setConfigAttr(config);
        if (!longKernel)
          return longKernel.status();
        if (!spills)
          return spills;
        if (longConfig == config) {
          // Narrowed to the short keys' tiles: one kernel for every length.
          flash->removeAttr(kLongKeysConfigAttr);
        } else {
          flash->setAttr(kLongKeysConfigAttr, longConfig);
          (*kernel)->setLongKeysKernel(
              *longKernel, alignedKeysUpTo((*kernel)->spec().causal ||
                                           (*kernel)->spec().window));
        }
      }
    if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op))
      if (Status s =
              attachCpAsyncFallback(context, flash, **kernel, diagnostics);
          !s)
        return s;
    compiled.kernels.push_back(*kernel);
  }
  // After the kernels: avoidSpills may change a config and remark on it.
  return finish();
}

Result<CompiledModule> compileSource(Context &context, const std::string &text,
                                     const CompileOptions &options,
                                     const std::string &bufferName) {
  mlir::MLIRContext mlirContext;
  registerAttnDialects(mlirContext);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    DiagnosticCollector diagnostics(mlirContext);
    module = mlir::attn::parseAttnSource(sourceMgr, &mlirContext);
    if (!module)
      return Status(StatusCode::ParseError, diagnostics.joinedErrors());
  }
  return compileModule(context, *module, options);
}

Result<CompiledModule> compileFile(Context &context, const std::string &path,
                                   const CompileOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buffer)
    return Status(StatusCode::IoError,
                  "cannot read " + path + ": " + buffer.getError().message());
  return compileSource(context, (*buffer)->getBuffer().str(), options, path);
}

} // namespace attn
