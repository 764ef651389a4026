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
  Option<bool> backward{*this, "backward",
                        llvm::cl::desc("Derive the backward after fusing "
                                       "(attn-derive-backward)"),
                        llvm::cl::init(false)};
  Option<bool> biasGrad{*this, "bias-grad",
                        llvm::cl::desc("With backward: the bias gradient too"),
                        llvm::cl::init(false)};
};
} // namespace

void registerAttnPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "attn-pipeline",
      "Fuse attention graphs and configure the fused kernels: canonicalize, "
      "attn-fuse, canonicalize, (with backward) attn-derive-backward, "
      "attn-select-config",
      [](OpPassManager &pm, const PipelineOptions &options) {
        // Dead graph ops would count as extra users and block fusion.
        pm.addPass(createCanonicalizerPass());
        pm.addPass(createAttnFusePass());
        pm.addPass(createCanonicalizerPass());
        if (options.backward) {
          AttnDeriveBackwardPassOptions derive;
          derive.biasGrad = options.biasGrad;
          pm.addPass(createAttnDeriveBackwardPass(derive));
        }
        AttnSelectConfigPassOptions select;
        select.arch = options.arch;
        pm.addPass(createAttnSelectConfigPass(select));
      });
}
} // namespace mlir::attn
