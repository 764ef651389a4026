//===- attn-run.cpp - Compile, run, check and time attention graphs -------===//
//
// attn-run FILE.mlir compiles every attention chain of the file's function
// (fuse, configure, NVRTC), or with --unfused every graph op as its own
// kernel; a file of attn.kernel ops (attn-opt --attn-lower-unfused) runs as
// it is. Without a GPU it prints the compile report and exits 0. With one it
// runs the kernels on seeded random inputs (or .npy files), and on request
// checks them against the float64 CPU reference of the original graph
// (--check), times them with CUDA events (--bench) and prints a per-kernel
// profile (--profile). --backward compiles and runs the training step
// (--attn-derive-backward) instead, checked against the reference's
// evaluation of the step. --check-ir compares the reference of the compiled
// IR with the graph's on the CPU; --no-compile stops after the pipeline and
// the emitters (no NVRTC), for sweeps of many graphs (scripts/gpu-diff.sh).
//
// The work is in lib/Run (AttnRun); this file is options and printing.
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Run/Check.h"
#include "attn/Run/Inputs.h"
#include "attn/Run/Module.h"
#include "attn/Run/Profile.h"
#include "attn/Run/Runner.h"
#include "attn/Variants/Archs.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/attn.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace llvm;
using attn::run::HostTensor;

namespace {

cl::OptionCategory category("attn-run options");

/// --arch's help, from the one list of tuned archs.
StringRef archDescription() {
  static const std::string description =
      "Target arch (" + attn::tunedArchNames() +
      "; newer ones run sm80); default: the GPU's, or sm_90a without one";
  return description;
}
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> archOption(
    "arch",
    cl::desc(archDescription()),
    cl::cat(category));
cl::opt<bool> checkOption("check",
                          cl::desc("Compare every output with the float64 CPU "
                                   "reference of the original graph"),
                          cl::cat(category));
cl::opt<bool> checkIROption(
    "check-ir",
    cl::desc("Compare the float64 reference of the compiled IR (fused or "
             "unfused) with that of the original graph; needs no GPU"),
    cl::cat(category));
cl::opt<bool> noCompileOption(
    "no-compile",
    cl::desc("Run the pipeline and emit each kernel's CUDA source, but "
             "compile none (no NVRTC, no ptxas) and run nothing, even on a "
             "GPU: with --check-ir, a CPU check of the pipeline alone, "
             "seconds faster per kernel. Ends with 'no-compile report done'"),
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
cl::list<std::string> setInputOption(
    "set-input",
    cl::desc("ARGUMENT:v0,v1,...: every value of one argument (by index), "
             "e.g. the offsets of a ragged batch; the others random or "
             "from --inputs"),
    cl::cat(category));
cl::opt<bool> poisonPaddingOption(
    "poison-padding",
    cl::desc("Set the k and v elements no sequence reads to NaN (keys past "
             "each sequence's length, rows outside a ragged batch's "
             "sequences, cache slots no block table entry reaches), as an "
             "uninitialized cache may hold them; the reference ignores them, "
             "so --check fails if a kernel lets them into its output"),
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
    cl::desc("Kernel variant: sm90ws (TMA, warp-specialized persistent "
             "wgmma, sm_90a), sm90 (cp.async, wgmma, sm_90a) or sm80 "
             "(mma.sync); default: the cost model's"),
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
cl::opt<bool> batchInvariantOption(
    "batch-invariant",
    cl::desc("Batch-invariant fused launches (keys split at fixed positions, "
             "always merged in order); with a GPU, each is run again with 3 "
             "more splits and must give the same bits"),
    cl::cat(category));
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
             "with the reference's evaluation of the step"),
    cl::cat(category));
cl::opt<bool> biasGradOption(
    "bias-grad", cl::desc("With --backward: the bias gradient too"),
    cl::cat(category));
cl::opt<bool> deterministicOption(
    "deterministic",
    cl::desc("Backward kernels without atomics (bitwise identical results "
             "run to run)"),
    cl::cat(category));
cl::opt<std::string> backwardVariantOption(
    "backward-variant",
    cl::desc("With --backward: the backward kernel variant, sm90ws (TMA, "
             "warp-specialized wgmma, sm_90a), sm90 (cp.async, wgmma, "
             "sm_90a) or sm80 (mma.sync); default: the cost model's"),
    cl::cat(category));
cl::opt<std::string> backwardTilesOption(
    "backward-tiles",
    cl::desc("With --backward: the backward tiles as BLOCK_MxBLOCK_Nx"
             "WARPSxSTAGES, e.g. 64x128x8x2; default: the cost model's"),
    cl::cat(category));
cl::opt<bool> printIR("print-ir", cl::desc("Print the IR after the pipeline"),
                      cl::cat(category));

int fail(const std::string &message) {
  std::fprintf(stderr, "attn-run: error: %s\n", message.c_str());
  return 1;
}

/// The compile report: one row per kernel.
void printKernels(const attn::CompiledModule &compiled) {
  std::printf("%-58s %-8s %5s %6s %7s %7s %9s  %s\n", "kernel", "variant",
              "regs", "spill", "stack", "smem", "build", "cache");
  auto row = [](attn::Kernel &k, const std::string &note) {
    const attn::KernelSpec &s = k.spec();
    auto registers = k.registers();
    std::printf("%-58s %-8s %5s %6d %7d %7d %7.1fms  %s%s\n", s.name.c_str(),
                s.variant.c_str(),
                registers ? std::to_string(*registers).c_str() : "-",
                k.ptxas().spillStoreBytes + k.ptxas().spillLoadBytes,
                k.ptxas().stackFrameBytes, attn::run::sharedBytes(k),
                k.buildMs(), attn::cacheOutcomeName(k.cacheOutcome()),
                note.c_str());
  };
  for (const auto &k : compiled.kernels) {
    row(k->primary(), "");
    // A dynamic key length: the kernel its long launches run.
    if (attn::Kernel *longKeys = k->longKeysKernel())
      row(*longKeys, " (launches past " +
                         std::to_string(k->longKeysFrom()) + " keys)");
  }
}

/// --no-compile: one row per emitted kernel.
void printEmitted(const attn::CompiledModule &compiled) {
  std::printf("%-58s %-8s %7s %7s  %s\n", "kernel", "variant", "threads",
              "smem", "(emitted, not compiled)");
  for (const attn::KernelSpec &s : compiled.emitted)
    std::printf("%-58s %-8s %7d %7d\n", s.name.c_str(), s.variant.c_str(),
                s.threads, s.sharedBytes);
}

/// --check: every output against the float64 reference; false on a FAIL.
attn::Result<bool> printCheck(const attn::run::LoadedModule &loaded,
                              const attn::run::Execution &execution,
                              const std::vector<HostTensor> &inputs,
                              std::mt19937_64 &rng) {
  auto outputs = attn::run::downloadResults(execution);
  if (!outputs)
    return outputs.status();
  // The gradients of a training step have no graph to check against: the
  // reference evaluates the step's attn.flash and attn.flash_bwd.
  auto checked = attn::run::checkAgainstReference(
      backwardOption ? loaded.func : loaded.originalFunc, inputs, *outputs,
      slicesOption, rng, toleranceOption);
  if (!checked)
    return checked.status();
  bool pass = true;
  for (auto [i, c] : llvm::enumerate(checked->outputs)) {
    std::printf("check output %zu (%s): rel L2 error %.3e over %lld values%s, "
                "%lld unwritten: %s\n",
                i, attn::run::shapeString(c.shape).c_str(), c.error,
                (long long)c.compared,
                checked->sampledSlices == 0
                    ? ""
                    : (" (" + std::to_string(checked->sampledSlices) +
                       " sampled slices)").c_str(),
                (long long)c.unwritten, c.pass ? "PASS" : "FAIL");
    pass = pass && c.pass;
  }
  std::printf("reference: %.0f ms\n", checked->referenceMs);
  return pass;
}

/// --bench / --profile: each kernel's median time and rates, then all of
/// them back to back, then (--profile) the key tiles of fused kernels.
attn::Status printBench(const attn::run::Execution &execution,
                        const attn::DeviceInfo &device) {
  std::printf("%-58s %14s %6s %5s %7s %4s %9s %9s %8s %7s\n", "kernel",
              "grid", "block", "regs", "smem", "occ", "ms", "TFLOP/s", "GB/s",
              "%peak");
  double sumMs = 0, sumBytes = 0;
  for (const attn::run::Launch &l : execution.launches) {
    auto ms = attn::run::medianMs(l.enqueue, warmupOption, itersOption);
    if (!ms)
      return ms.status();
    attn::run::LaunchRate rate = attn::run::launchRate(l, *ms, device);
    sumMs += *ms;
    sumBytes += l.bytes;
    attn::Result<attn::Kernel *> ran = attn::run::kernelOf(l);
    if (!ran)
      return ran.status();
    attn::Kernel &kernel = **ran;
    auto occupancy = kernel.occupancy();
    auto registers = kernel.loadedRegisters();
    std::string gridText = std::to_string(l.grid.x) + "x" +
                           std::to_string(l.grid.y) + "x" +
                           std::to_string(l.grid.z);
    char tflopsText[32] = "-";
    if (l.flops > 0)
      std::snprintf(tflopsText, sizeof(tflopsText), "%.1f", rate.tflops);
    std::printf("%-58s %14s %6d %5d %7d %4d %9.4f %9s %8.0f %6.1f%%\n",
                kernel.spec().name.c_str(), gridText.c_str(),
                kernel.blockThreads(), registers ? *registers : 0,
                attn::run::sharedBytes(kernel), occupancy ? *occupancy : -1,
                *ms, tflopsText, rate.gbs, rate.percentOfPeak);
  }
  // The kernels back to back, as a framework would enqueue them.
  auto sequenceMs = attn::run::medianMs(
      [&]() -> attn::Status {
        for (const attn::run::Launch &l : execution.launches)
          if (attn::Status s = l.enqueue(); !s)
            return s;
        return attn::Status::ok();
      },
      warmupOption, itersOption);
  if (!sequenceMs)
    return sequenceMs.status();
  std::printf("total: %zu kernel(s), %.1f MB of operands and results, "
              "%.4f ms (sum of medians), %.4f ms back to back\n",
              execution.launches.size(), sumBytes / 1e6, sumMs, *sequenceMs);
  std::printf("device peak: %.0f TFLOP/s (dense 16-bit), %.0f GB/s\n",
              attn::run::peakTflops(device), device.peakBandwidthGBs());
  if (!profileOption)
    return attn::Status::ok();
  for (const attn::run::Launch &l : execution.launches) {
    if (!l.flashArgs)
      continue;
    auto t = attn::run::tileStats(l);
    if (!t)
      return t.status();
    std::printf("key tiles of %s: %llu of %llu computed (%.1f%% skipped), %llu "
                "masked element-wise; %d split%s per query block%s\n",
                l.kernel->spec().name.c_str(), t->computed, t->all,
                t->all ? 100.0 * double(t->all - t->computed) / double(t->all)
                       : 0.0,
                t->masked, t->splits, t->splits == 1 ? "" : "s",
                t->packedHeads ? ", query heads packed" : "");
  }
  return attn::Status::ok();
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
      "every graph op runs as its own kernel. --backward runs the training "
      "step instead: the forward and its derived backward. --bench times "
      "each kernel and the function's kernels back to back.\n\n"
      "Without a GPU, prints the compile-only report (variant, ptxas "
      "resources, compile time, cache hit or miss) and exits 0. "
      "--check-ir checks the pipeline on the CPU: the float64 reference of "
      "the compiled IR against the graph's; with --no-compile no kernel is "
      "compiled (a second or more each saved), as random-graph sweeps run "
      "it.\n");

  bool bshd = layoutOption == "bshd";
  if (!bshd && layoutOption != "bhsd")
    return fail("--layout must be bhsd or bshd, got '" + layoutOption + "'");

  attn::Result<attn::run::LoadedModule> loaded =
      attn::run::loadModule(inputFile);
  if (!loaded) {
    // Parser and verifier diagnostics were printed where they were found.
    if (loaded.status().code() == attn::StatusCode::ParseError)
      return 1;
    return fail(loaded.status().message());
  }

  attn::Result<attn::DeviceInfo> device = attn::Context::device();
  attn::Context::Options contextOptions;
  contextOptions.arch = archOption;
  contextOptions.cacheDirectory = cacheDirOption;
  contextOptions.diskCache = !noDiskCacheOption;
  auto ctx = attn::Context::create(contextOptions);
  if (!ctx)
    return fail(ctx.status().toString());

  std::printf("attn-run %s: arch %s, NVRTC %s, %s\n", inputFile.c_str(),
              (*ctx)->arch().c_str(), attn::run::nvrtcVersion().c_str(),
              device ? (device->name + ", " + std::to_string(device->multiprocessors) +
                        " SMs").c_str()
                     : "no GPU (compile only)");
  if (unfusedOption && (!variantOption.empty() || blockMOption || blockNOption ||
                        numWarpsOption || stagesOption))
    return fail("--unfused runs no fused kernel; --variant and the tile "
                "options do not apply");
  if (!backwardOption &&
      (biasGradOption || deterministicOption ||
       !backwardVariantOption.empty() || !backwardTilesOption.empty()))
    return fail("--bias-grad, --deterministic, --backward-variant and "
                "--backward-tiles apply to --backward");
  if (noCompileOption && (checkOption || benchOption || profileOption ||
                          batchInvariantOption || poisonPaddingOption))
    return fail("--no-compile runs no kernel; --check, --bench, --profile, "
                "--batch-invariant and --poison-padding need one");
  if (backwardOption && checkIROption)
    return fail("--check-ir compares the compiled IR with the original graph; "
                "a training step (--backward) has no graph to compare with");
  attn::CompileOptions compileOptions;
  compileOptions.unfused = unfusedOption;
  compileOptions.backward = backwardOption;
  compileOptions.backwardBiasGrad = biasGradOption;
  compileOptions.backwardVariant = backwardVariantOption;
  compileOptions.backwardTiles = backwardTilesOption;
  compileOptions.variant = variantOption;
  compileOptions.blockM = blockMOption;
  compileOptions.blockN = blockNOption;
  compileOptions.numWarps = numWarpsOption;
  compileOptions.stages = stagesOption;
  compileOptions.compileKernels = !noCompileOption;
  attn::Result<attn::CompiledModule> compiled =
      attn::compileModule(**ctx, *loaded->module, compileOptions);
  if (!compiled)
    return fail(compiled.status().toString());
  for (const std::string &remark : compiled->remarks)
    std::printf("%s\n", remark.c_str());
  if (printIR)
    std::printf("%s\n", compiled->loweredIR.c_str());
  if (noCompileOption) {
    printEmitted(*compiled);
    std::printf("pipeline + emission: %.1f ms\n", compiled->pipelineMs);
  } else {
    printKernels(*compiled);
    std::printf("pipeline + build: %.1f ms\n", compiled->pipelineMs);
  }

  // Inputs on the host (the reference's too): read and checked even
  // without a GPU, so that a bad --inputs is reported either way.
  std::vector<HostTensor> inputs;
  std::mt19937_64 rng(seedOption);
  std::vector<std::string> npyFiles;
  unsigned numArguments = loaded->func.getNumArguments();
  if (!inputsOption.empty()) {
    llvm::SmallVector<StringRef> parts;
    StringRef(inputsOption).split(parts, ',');
    for (StringRef p : parts)
      npyFiles.push_back(p.str());
    if (npyFiles.size() != numArguments)
      return fail("--inputs has " + std::to_string(npyFiles.size()) +
                  " files for " + std::to_string(numArguments) + " arguments");
  }
  if ((device && !noCompileOption) || !npyFiles.empty() ||
      !setInputOption.empty() || checkIROption) {
    auto made = attn::run::makeInputs(loaded->func, npyFiles, rng);
    if (!made)
      return fail(made.status().message());
    inputs = std::move(*made);
    if (!npyFiles.empty())
      std::printf("inputs: %zu .npy files read\n", npyFiles.size());
    if (attn::Status s = attn::run::setInputValues(loaded->func, setInputOption,
                                             inputs);
        !s)
      return fail(s.message());
    if (poisonPaddingOption) {
      attn::Result<int64_t> poisoned =
          attn::run::poisonUnreadKeys(loaded->func, inputs);
      if (!poisoned)
        return fail(poisoned.status().message());
      std::printf("inputs: %lld elements of k and v that no sequence reads "
                  "set to NaN\n",
                  static_cast<long long>(*poisoned));
    }
  }

  if (checkIROption) {
    // Fusion folds scales into one f32 factor: the two agree to f32
    // rounding, not to double's.
    auto checked = attn::run::checkLoweringAgainstReference(
        loaded->originalFunc, loaded->func, inputs, slicesOption, rng, 1e-6);
    if (!checked)
      return fail(checked.status().message());
    for (auto [i, c] : llvm::enumerate(checked->outputs)) {
      std::printf("check ir output %zu (%s): rel L2 error %.3e over %lld "
                  "values, %lld unwritten: %s\n",
                  i, attn::run::shapeString(c.shape).c_str(), c.error,
                  (long long)c.compared, (long long)c.unwritten,
                  c.pass ? "PASS" : "FAIL");
      if (!c.pass)
        return 1;
    }
  }

  if (noCompileOption) {
    std::printf("no-compile report done\n");
    return 0;
  }
  if (!device) {
    std::printf("no GPU: %s\ncompile-only report done\n",
                device.status().message().c_str());
    if (checkOption || benchOption || profileOption)
      std::printf("--check, --bench and --profile need a GPU; skipped\n");
    return 0;
  }

  if (std::optional<std::string> why = attn::run::whyNotRunnable(loaded->func))
    return fail(*why);
  attn::run::RunOptions runOptions;
  runOptions.bshd = bshd;
  runOptions.splits = splitsOption;
  runOptions.batchInvariant = batchInvariantOption;
  runOptions.deterministic = deterministicOption;
  auto execution = attn::run::runFunction(loaded->func, compiled->kernels,
                                          inputs, runOptions);
  if (!execution)
    return fail(execution.status().toString());
  if (attn::Status s = attn::run::synchronize(); !s)
    return fail("kernel failed: " + s.toString());
  std::printf("ran %zu kernel(s) on %s\n", execution->launches.size(),
              device->name.c_str());

  int status = 0;
  if (batchInvariantOption) {
    auto compared = attn::run::checkSplitInvariance(*execution);
    if (!compared && compared.status().code() != attn::StatusCode::InvalidArgument)
      return fail(compared.status().toString());
    std::printf("batch-invariant: %s\n",
                compared ? ("PASS (" + std::to_string(*compared) +
                            " launch(es) bitwise equal with 3 more splits)")
                               .c_str()
                         : ("FAIL: " + compared.status().message()).c_str());
    if (!compared)
      status = 1;
  }
  if (checkOption) {
    auto pass = printCheck(*loaded, *execution, inputs, rng);
    if (!pass)
      return fail(pass.status().code() == attn::StatusCode::Unsupported
                      ? pass.status().message()
                      : pass.status().toString());
    if (!*pass)
      status = 1;
  }
  if (benchOption || profileOption)
    if (attn::Status s = printBench(*execution, *device); !s)
      return fail(s.toString());
  return status;
}
