//===- Pipelines.cpp - The attn pass pipelines ----------------------------===//

#include "attn/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::attn {
namespace {
struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
  Option<std::string> arch{*this, "arch",
                           llvm::cl::desc("Target GPU: sm_80, sm_86, sm_89 or "
                                          "sm_90a"),
                           llvm::cl::init("sm_90a")};
};
} // namespace

void registerAttnPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "attn-pipeline",
      "Fuse attention graphs and configure the fused kernels: canonicalize, "
      "attn-fuse, canonicalize, attn-select-config",
      [](OpPassManager &pm, const PipelineOptions &options) {
        // Dead graph ops would count as extra users and block fusion.
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createAttnFusePass());
        pm.addPass(createCanonicalizerPass());
        AttnSelectConfigPassOptions select;
        select.arch = options.arch;
        pm.addPass(createAttnSelectConfigPass(select));
      });
}
} // namespace mlir::attn
