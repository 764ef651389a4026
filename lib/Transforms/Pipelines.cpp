//===- Pipelines.cpp - The attn pass pipelines ----------------------------===//

#include "attn/Transforms/Passes.h"
#include "attn/Variants/Archs.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::attn {

void buildAttnPipeline(OpPassManager &pm, const AttnPipelineOptions &options) {
  // Dead graph ops would count as extra users and block fusion. Not the
  // canonicalizer: its folds inside score_mod bodies disagree with attn's
  // semantics of their ops (atan2(0, 0), index_castui through i1).
  pm.addPass(createAttnCanonicalizeGraphPass());
  AttnDeriveBackwardPassOptions derive;
  derive.biasGrad = options.biasGrad;
  if (options.unfused) {
    pm.addPass(createAttnLowerUnfusedPass());
    // Nothing fused to differentiate: the pass says so.
    if (options.backward)
      pm.addPass(createAttnDeriveBackwardPass(derive));
    return;
  }
  pm.addPass(createAttnFusePass());
  pm.addPass(createAttnCanonicalizeGraphPass());
  if (options.backward)
    pm.addPass(createAttnDeriveBackwardPass(derive));
  AttnSelectConfigPassOptions select;
  select.arch = options.arch;
  select.variant = options.variant;
  select.blockM = options.blockM;
  select.blockN = options.blockN;
  select.numWarps = options.numWarps;
  select.stages = options.stages;
  select.backwardVariant = options.backwardVariant;
  select.backwardTiles = options.backwardTiles;
  pm.addPass(createAttnSelectConfigPass(select));
}

namespace {
/// "Target GPU: sm_80, ... or sm_90a", from the one list of archs.
llvm::StringRef archDescription() {
  static const std::string description =
      "Target GPU: " + ::attn::tunedArchNames() + " (newer ones run sm80)";
  return description;
}

struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
  Option<std::string> arch{*this, "arch", llvm::cl::desc(archDescription()),
                           llvm::cl::init("sm_90a")};
  Option<std::string> variant{
      *this, "variant",
      llvm::cl::desc("Override: kernel variant, sm80 or sm90 (empty = model)"),
      llvm::cl::init("")};
  Option<int64_t> blockM{*this, "block-m",
                         llvm::cl::desc("Override: query rows per tile"),
                         llvm::cl::init(0)};
  Option<int64_t> blockN{*this, "block-n",
                         llvm::cl::desc("Override: keys per tile"),
                         llvm::cl::init(0)};
  Option<int64_t> numWarps{*this, "num-warps",
                           llvm::cl::desc("Override: warps per block"),
                           llvm::cl::init(0)};
  Option<int64_t> stages{*this, "stages",
                         llvm::cl::desc("Override: K/V pipeline stages"),
                         llvm::cl::init(0)};
  Option<bool> unfused{*this, "unfused",
                       llvm::cl::desc("Run every graph op as its own kernel "
                                      "instead of fusing"),
                       llvm::cl::init(false)};
  Option<bool> backward{*this, "backward",
                        llvm::cl::desc("Derive the backward after fusing "
                                       "(attn-derive-backward)"),
                        llvm::cl::init(false)};
  // Named as CompileOptions names it, for makeAttnPipelineOptions.
  Option<bool> backwardBiasGrad{*this, "bias-grad",
                        llvm::cl::desc("With backward: the bias gradient too"),
                        llvm::cl::init(false)};
  Option<std::string> backwardVariant{
      *this, "backward-variant",
      llvm::cl::desc("Override: backward kernel variant, sm90 or sm80 "
                     "(empty = model)"),
      llvm::cl::init("")};
  Option<std::string> backwardTiles{
      *this, "backward-tiles",
      llvm::cl::desc("Override: backward tiles as BLOCK_MxBLOCK_NxWARPSx"
                     "STAGES, e.g. 64x128x8x2 (empty = model)"),
      llvm::cl::init("")};
};
} // namespace

void registerAttnPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "attn-pipeline",
      "Fuse attention graphs and configure the fused kernels: "
      "attn-canonicalize-graph, attn-fuse, attn-canonicalize-graph, (with "
      "backward) attn-derive-backward, attn-select-config (or, with unfused, "
      "attn-canonicalize-graph, attn-lower-unfused)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildAttnPipeline(pm, makeAttnPipelineOptions(options.arch, options));
      });
}
} // namespace mlir::attn
