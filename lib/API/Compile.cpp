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

/// One kernel of an op's launch plan, emitted: its config and spec, and the
/// narrower tiles that run where ptxas spills it (the plan's
/// *spill_block_n, most keys first; none where the tiles were given).
struct PlannedKernel {
  mlir::attn::ConfigAttr config;
  KernelSpec spec;
  llvm::SmallVector<mlir::attn::ConfigAttr> narrowerConfigs;
  std::vector<KernelSpec> narrower;
};

/// Every kernel an op may launch (#attn.launch_plan, #attn.backward_plan),
/// all emitted before any is compiled: after NVRTC the runtime only picks
/// among them.
struct OpPlan {
  mlir::Operation *op = nullptr;
  PlannedKernel primary;
  std::optional<PlannedKernel> longKeys, cpAsync;
  /// A backward's kernel for where the primary's spill.
  mlir::attn::BackwardConfigAttr backwardSpillConfig;
  std::optional<KernelSpec> backwardSpill;
};

mlir::FailureOr<PlannedKernel> emitPlanned(mlir::attn::FlashOp flash,
                                           mlir::attn::ConfigAttr config,
                                           mlir::DenseI64ArrayAttr narrower) {
  PlannedKernel planned;
  planned.config = config;
  mlir::FailureOr<KernelSpec> spec = mlir::attn::emitFlashKernel(flash, config);
  if (mlir::failed(spec))
    return mlir::failure();
  planned.spec = std::move(*spec);
  planned.narrowerConfigs =
      mlir::attn::LaunchPlanAttr::narrowed(config, narrower);
  for (mlir::attn::ConfigAttr narrowerConfig : planned.narrowerConfigs) {
    mlir::FailureOr<KernelSpec> narrowerSpec =
        mlir::attn::emitFlashKernel(flash, narrowerConfig);
    if (mlir::failed(narrowerSpec))
      return mlir::failure();
    planned.narrower.push_back(std::move(*narrowerSpec));
  }
  return planned;
}

/// Emits `op`'s kernel and the others its plan names.
mlir::FailureOr<OpPlan> emitPlan(mlir::Operation *op) {
  OpPlan plan;
  plan.op = op;
  if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op)) {
    mlir::attn::LaunchPlanAttr launch = flash.getPlanAttr();
    mlir::FailureOr<PlannedKernel> primary = emitPlanned(
        flash, flash.getConfigAttr(),
        launch ? launch.getSpillBlockN() : mlir::DenseI64ArrayAttr());
    if (mlir::failed(primary))
      return mlir::failure();
    plan.primary = std::move(*primary);
    if (launch && launch.getLongKeys()) {
      mlir::FailureOr<PlannedKernel> longKeys = emitPlanned(
          flash, launch.getLongKeys(), launch.getLongKeysSpillBlockN());
      if (mlir::failed(longKeys))
        return mlir::failure();
      plan.longKeys = std::move(*longKeys);
    }
    if (launch && launch.getCpAsync()) {
      mlir::FailureOr<PlannedKernel> cpAsync = emitPlanned(
          flash, launch.getCpAsync(), launch.getCpAsyncSpillBlockN());
      if (mlir::failed(cpAsync))
        return mlir::failure();
      plan.cpAsync = std::move(*cpAsync);
    }
    return plan;
  }
  if (auto backward = mlir::dyn_cast<mlir::attn::FlashBwdOp>(op)) {
    mlir::FailureOr<KernelSpec> spec =
        mlir::attn::emitFlashBackwardKernel(backward);
    if (mlir::failed(spec))
      return mlir::failure();
    plan.primary.spec = std::move(*spec);
    if (mlir::attn::BackwardPlanAttr backwardPlan = backward.getPlanAttr();
        backwardPlan && backwardPlan.getSpill()) {
      mlir::FailureOr<KernelSpec> spill = mlir::attn::emitFlashBackwardKernel(
          backward, backwardPlan.getSpill());
      if (mlir::failed(spill))
        return mlir::failure();
      plan.backwardSpillConfig = backwardPlan.getSpill();
      plan.backwardSpill = std::move(*spill);
    }
    return plan;
  }
  mlir::FailureOr<KernelSpec> spec =
      mlir::attn::emitGraphKernel(mlir::cast<mlir::attn::KernelOp>(op));
  if (mlir::failed(spec))
    return mlir::failure();
  plan.primary.spec = std::move(*spec);
  return plan;
}

/// The kernel that runs for `planned`, whose own kernel `kernel` is: that
/// one, or where ptxas spilled it, the first of its narrower tiles that does
/// not spill (compiled a batch at a time, mostKeysWithoutSpills); its index
/// among them in `picked` (-1: its own). If every one spills, its own.
std::shared_ptr<Kernel> pickWithoutSpills(Context &context,
                                          const PlannedKernel &planned,
                                          std::shared_ptr<Kernel> kernel,
                                          int &picked) {
  picked = -1;
  if (spillBytes(*kernel) == 0 || planned.narrower.empty())
    return kernel;
  std::vector<Kernel::DeferredBuild> builds;
  for (const KernelSpec &spec : planned.narrower)
    builds.push_back(context.deferBuild(spec));
  auto [index, best] = mostKeysWithoutSpills(builds);
  if (!best)
    return kernel;
  picked = index;
  return best;
}

/// "ptxas spilled N bytes at MxN (variant)ROLE; compiled with block_n B,
/// which does not spill", on `flash`.
void remarkNarrowed(mlir::attn::FlashOp flash, int spilled,
                    mlir::attn::ConfigAttr from, mlir::attn::ConfigAttr to,
                    llvm::StringRef role) {
  flash.emitRemark() << "ptxas spilled " << spilled << " bytes at "
                     << from.getBlockM() << "x" << from.getBlockN() << " ("
                     << from.getVariant() << ")" << role
                     << "; compiled with block_n " << to.getBlockN()
                     << ", which does not spill";
}

/// The narrower tiles of `planned` after its `picked`-th, as the plan
/// spells them (null if none).
mlir::DenseI64ArrayAttr narrowerAfter(mlir::MLIRContext *context,
                                      const PlannedKernel &planned,
                                      int picked) {
  llvm::SmallVector<int64_t> rest;
  for (size_t i = picked + 1; i < planned.narrowerConfigs.size(); ++i)
    rest.push_back(planned.narrowerConfigs[i].getBlockN());
  return rest.empty() ? mlir::DenseI64ArrayAttr()
                      : mlir::DenseI64ArrayAttr::get(context, rest);
}

/// The cp.async kernel of a persistent `kernel`'s plan, for launches TMA
/// cannot read: compiled by the first such launch
/// (KernelGroup::setCpAsyncFallback); where it spills, the first of its
/// narrower tiles that does not.
void attachCpAsyncFallback(Context &context, const PlannedKernel &planned,
                           KernelGroup &group) {
  std::vector<Kernel::DeferredBuild> narrower;
  for (const KernelSpec &spec : planned.narrower)
    narrower.push_back(context.deferBuild(spec));
  const std::string name = planned.spec.name;
  Kernel::DeferredBuild own = context.deferBuild(planned.spec);
  group.setCpAsyncFallback(
      name, [own = std::move(own), narrower = std::move(narrower),
             name]() -> Result<std::shared_ptr<Kernel>> {
        Result<std::shared_ptr<Kernel>> built = own();
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
}

/// The group of one forward op once its plan's first kernels are built
/// (`kernel`, and `longKernel` for long keys): the picks where they spilled,
/// the long-keys kernel and cp.async fallback attached. The op's config and
/// plan are set to what was picked, so that the lowered IR says what runs.
std::shared_ptr<KernelGroup> finishForward(Context &context, const OpPlan &plan,
                                      std::shared_ptr<Kernel> kernel,
                                      std::shared_ptr<Kernel> longKernel) {
  auto flash = mlir::cast<mlir::attn::FlashOp>(plan.op);
  mlir::MLIRContext *mlirContext = flash.getContext();
  mlir::attn::LaunchPlanAttr launch = flash.getPlanAttr();
  int picked = -1;
  const int spilled = spillBytes(*kernel);
  kernel = pickWithoutSpills(context, plan.primary, kernel, picked);
  mlir::attn::ConfigAttr config = plan.primary.config;
  mlir::DenseI64ArrayAttr spillBlockN =
      launch ? launch.getSpillBlockN() : mlir::DenseI64ArrayAttr();
  if (picked >= 0) {
    config = plan.primary.narrowerConfigs[picked];
    remarkNarrowed(flash, spilled, plan.primary.config, config, "");
    spillBlockN = narrowerAfter(mlirContext, plan.primary, picked);
  }
  auto group = std::make_shared<KernelGroup>(kernel);
  mlir::attn::ConfigAttr longConfig;
  mlir::DenseI64ArrayAttr longSpillBlockN;
  if (plan.longKeys) {
    const int longSpilled = spillBytes(*longKernel);
    longKernel =
        pickWithoutSpills(context, *plan.longKeys, longKernel, picked);
    longConfig = plan.longKeys->config;
    longSpillBlockN = launch.getLongKeysSpillBlockN();
    if (picked >= 0) {
      longConfig = plan.longKeys->narrowerConfigs[picked];
      remarkNarrowed(flash, longSpilled, plan.longKeys->config, longConfig,
                     " for long keys");
      longSpillBlockN = narrowerAfter(mlirContext, *plan.longKeys, picked);
    }
    if (longConfig == config) {
      // Narrowed to the short keys' tiles: one kernel for every length.
      longConfig = nullptr;
      longSpillBlockN = nullptr;
    } else {
      group->setLongKeysKernel(
          longKernel, alignedKeysUpTo(kernel->spec().causal ||
                                      kernel->spec().window));
    }
  }
  if (plan.cpAsync)
    attachCpAsyncFallback(context, *plan.cpAsync, *group);
  flash.setConfigAttr(config);
  if (launch) {
    auto picks = mlir::attn::LaunchPlanAttr::get(
        mlirContext, spillBlockN, longConfig, longSpillBlockN,
        launch.getCpAsync(), launch.getCpAsyncSpillBlockN());
    if (picks == mlir::attn::LaunchPlanAttr::get(mlirContext, nullptr, nullptr,
                                                 nullptr, nullptr, nullptr))
      flash.removePlanAttr();
    else
      flash.setPlanAttr(picks);
  }
  return group;
}

/// A backward whose kernels spilled runs its plan's spill config where
/// that one's do not (a remark says so); otherwise its own.
std::shared_ptr<Kernel> finishBackward(Context &context, const OpPlan &plan,
                                       std::shared_ptr<Kernel> kernel) {
  const int spilled = spillBytes(*kernel);
  if (spilled == 0 || !plan.backwardSpill)
    return kernel;
  Result<std::shared_ptr<Kernel>> retry = context.build(*plan.backwardSpill);
  if (!retry || spillBytes(**retry) != 0)
    return kernel;
  auto backward = mlir::cast<mlir::attn::FlashBwdOp>(plan.op);
  mlir::attn::BackwardConfigAttr chosen = backward.getConfigAttr();
  mlir::attn::BackwardConfigAttr other = plan.backwardSpillConfig;
  backward.emitRemark() << "ptxas spilled " << spilled
                        << " bytes in backward variant " << chosen.getVariant()
                        << "; compiled with backward variant "
                        << other.getVariant() << " (" << other.getBlockM()
                        << "x" << other.getBlockN() << "x"
                        << other.getNumWarps() << "x" << other.getStages()
                        << "), which does not spill";
  backward.setConfigAttr(other);
  backward.removePlanAttr();
  return *retry;
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
  // attn-select-config checks configs and plans against the arch; IR
  // compiled as it is was not through it (the verifier cannot know the GPU,
  // but the context does).
  if (!options.runPipeline)
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
  // Every kernel of every plan is emitted first; each op's first kernels
  // (and a dynamic length's long-keys kernel) are then compiled together
  // (buildAll), and the rest only where a pick needs them: narrower tiles
  // where ptxas spilled, the cp.async kernel at the first launch TMA cannot
  // read.
  std::vector<OpPlan> plans;
  for (mlir::Operation *op : kernelOps) {
    mlir::FailureOr<OpPlan> plan = emitPlan(op);
    if (mlir::failed(plan))
      return Status(StatusCode::Unsupported, diagnostics.joinedErrors());
    plans.push_back(std::move(*plan));
  }
  std::vector<KernelSpec> first;
  std::vector<int> longIndex(plans.size(), -1);
  for (const OpPlan &plan : plans)
    first.push_back(plan.primary.spec);
  for (size_t i = 0; i < plans.size(); ++i)
    if (plans[i].longKeys) {
      longIndex[i] = static_cast<int>(first.size());
      first.push_back(plans[i].longKeys->spec);
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
  // the IR, attn-run --no-compile).
  if (!options.compileKernels) {
    compiled.emitted = std::move(first);
    return finish();
  }
  std::vector<std::optional<Result<std::shared_ptr<Kernel>>>> built =
      buildAll(context, first);
  for (size_t i = 0; i < plans.size(); ++i) {
    Result<std::shared_ptr<Kernel>> kernel = std::move(*built[i]);
    if (!kernel)
      return kernel.status();
    std::shared_ptr<KernelGroup> runs;
    if (mlir::isa<mlir::attn::FlashOp>(plans[i].op)) {
      std::shared_ptr<Kernel> longKernel;
      if (longIndex[i] >= 0) {
        Result<std::shared_ptr<Kernel>> built_long =
            std::move(*built[longIndex[i]]);
        if (!built_long)
          return built_long.status();
        longKernel = *built_long;
      }
      runs = finishForward(context, plans[i], *kernel, longKernel);
    } else if (mlir::isa<mlir::attn::FlashBwdOp>(plans[i].op)) {
      runs = std::make_shared<KernelGroup>(
          finishBackward(context, plans[i], *kernel));
    } else {
      runs = std::make_shared<KernelGroup>(*kernel);
    }
    compiled.kernels.push_back(runs);
  }
  // After the kernels: a pick may change a config and remark on it.
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
