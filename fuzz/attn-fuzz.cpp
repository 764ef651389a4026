//===- attn-fuzz.cpp - libFuzzer target: parser, passes, emitter ----------===//
//
// One input is one module of text. It goes through what a caller's text
// goes through: the nesting check and the parser (parseAttnSource), the
// fused pipeline for sm_90a and sm_80, the fused pipeline with the derived
// backward (sm_80, with bias gradients) and the unfused one, the resource
// check of the configs, and the CUDA emitters. Errors are fine; a crash, a
// sanitizer report, or a pass that succeeds but leaves IR that does not
// verify is a finding (the last one traps).
//
// Built with libFuzzer by scripts/fuzz.sh (clang, its own build directory);
// built with a plain main (replay-main.cpp) in the ordinary build, where
// ctest replays the seed corpus and every regression input through it.
//
//===----------------------------------------------------------------------===//

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Support/Dialects.h"
#include "attn/Support/Parser.h"
#include "attn/Target/Cuda/EmitCuda.h"
#include "attn/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

namespace {

/// Runs `pass` alone; true if it succeeded. A pass that succeeds must leave
/// IR that verifies.
bool runChecked(ModuleOp module, std::unique_ptr<Pass> pass) {
  std::string name = pass->getArgument().str();
  PassManager pm(module.getContext());
  pm.enableVerifier(false);
  pm.addPass(std::move(pass));
  if (failed(pm.run(module)))
    return false;
  if (failed(verify(module))) {
    llvm::errs() << "attn-fuzz: " << name
                 << " succeeded but left IR that does not verify\n";
    module.print(llvm::errs());
    __builtin_trap();
  }
  return true;
}

/// The pipeline of buildAttnPipeline, pass by pass, then the emitters.
/// (A failing derive pass ends the backward pipeline: most inputs have no
/// attn.flash to differentiate.)
void compile(ModuleOp module, const mlir::attn::AttnPipelineOptions &options) {
  if (!runChecked(module, mlir::attn::createAttnCanonicalizeGraphPass()))
    return;
  if (options.unfused) {
    if (!runChecked(module, mlir::attn::createAttnLowerUnfusedPass()))
      return;
  } else {
    mlir::attn::AttnSelectConfigPassOptions select;
    select.arch = options.arch;
    mlir::attn::AttnDeriveBackwardPassOptions derive;
    derive.biasGrad = options.biasGrad;
    if (!runChecked(module, mlir::attn::createAttnFusePass()) ||
        !runChecked(module, mlir::attn::createAttnCanonicalizeGraphPass()) ||
        (options.backward &&
         !runChecked(module, mlir::attn::createAttnDeriveBackwardPass(derive))) ||
        !runChecked(module, mlir::attn::createAttnSelectConfigPass(select)))
      return;
  }
  std::optional<mlir::attn::ArchInfo> arch = mlir::attn::lookupArch(options.arch);
  static const bool debug = std::getenv("ATTN_FUZZ_DEBUG");
  module.walk([&](Operation *op) {
    FailureOr<::attn::KernelSpec> spec = failure();
    if (auto flash = dyn_cast<mlir::attn::FlashOp>(op)) {
      if (succeeded(mlir::attn::verifyConfigFits(flash, *arch)))
        spec = mlir::attn::emitFlashKernel(flash);
    } else if (auto backward = dyn_cast<mlir::attn::FlashBwdOp>(op)) {
      if (succeeded(mlir::attn::verifyConfigFits(backward, *arch)))
        spec = mlir::attn::emitFlashBackwardKernel(backward);
    } else if (auto kernel = dyn_cast<mlir::attn::KernelOp>(op)) {
      spec = mlir::attn::emitGraphKernel(kernel);
    }
    if (debug && succeeded(spec))
      llvm::errs() << "attn-fuzz: emitted " << spec->name << "\n";
  });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    mlir::attn::registerAttnDialects(*r);
    return r;
  }();
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  // Diagnostics are expected; printing them would only slow the search.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz-input.mlir"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = mlir::attn::parseAttnSource(sourceMgr, &context);
  if (!module)
    return 0;

  mlir::attn::AttnPipelineOptions fused90, fused80, training, unfused;
  fused80.arch = "sm_80";
  training.arch = "sm_80";
  training.backward = training.biasGrad = true;
  unfused.unfused = true;
  for (const mlir::attn::AttnPipelineOptions *options :
       {&fused90, &fused80, &training, &unfused}) {
    OwningOpRef<ModuleOp> copy = module->clone();
    compile(*copy, *options);
  }
  return 0;
}
