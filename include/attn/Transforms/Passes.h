//===- Passes.h - attn passes -----------------------------------*- C++ -*-===//

#ifndef ATTN_TRANSFORMS_PASSES_H
#define ATTN_TRANSFORMS_PASSES_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "mlir/Pass/Pass.h"
#include <optional>
#include <string>

namespace mlir::attn {

#define GEN_PASS_DECL
#include "attn/Transforms/Passes.h.inc"

/// What the cost model knows of a GPU architecture.
struct ArchInfo {
  llvm::StringRef name;     ///< "sm_80", ...
  int computeCapability;    ///< 80, 86, 89, 90
  int numSMs;               ///< multiprocessors of the reference part
  int64_t maxSharedPerBlock; ///< bytes, opt-in limit
  int64_t maxSharedPerSM;   ///< bytes
  bool tuned = true;        ///< false: derived for a GPU newer than sm_90a
};

/// The architectures --attn-select-config knows; a newer one (sm_100,
/// sm_120, ...) derived from its compute capability; nullopt below sm_80.
std::optional<ArchInfo> lookupArch(llvm::StringRef name);

/// Why `name` is no target, naming the GPUs attn supports.
std::string unsupportedArchMessage(llvm::StringRef name);

/// Checks the #attn.config of `op` (hand-written or chosen), and the
/// long-keys and cp.async configs of its launch plan, against the
/// shared-memory and register model of their variants (KernelVariants.h) on
/// `arch`; reports on the op and fails where one does not fit. Ops without a
/// config pass.
LogicalResult verifyConfigFits(FlashOp op, const ArchInfo &arch);
/// The same for the #attn.backward_config of an attn.flash_bwd (and its
/// plan's spill config), with the table's backward variants (both of its
/// kernels).
LogicalResult verifyConfigFits(FlashBwdOp op, const ArchInfo &arch);

/// What --attn-pipeline (and the C++ API's compile) runs.
struct AttnPipelineOptions {
  /// Target GPU for attn-select-config.
  std::string arch = "sm_90a";
  /// attn-select-config overrides: the variant ("" = the cost model's) and
  /// the tiles (0 = the model's).
  std::string variant;
  int64_t blockM = 0, blockN = 0, numWarps = 0, stages = 0;
  /// Instead of fusing and configuring, run every graph op as its own kernel
  /// (attn-lower-unfused).
  bool unfused = false;
  /// After fusing, derive the backward (attn-derive-backward): each function
  /// returning an attn.flash becomes a training step. `biasGrad`: also the
  /// gradient of each bias operand. The backward is derived from fused
  /// attention: with `unfused`, the derive pass finds nothing and fails.
  bool backward = false;
  bool biasGrad = false;
  /// attn-select-config's backward overrides ("" = the model's): the
  /// variant, and the tiles as "MxNxWARPSxSTAGES".
  std::string backwardVariant, backwardTiles;
};

/// The pipeline options for `arch` of `options`: any options struct that
/// names the overrides, `unfused`, `backward`, `backwardBiasGrad`,
/// `backwardVariant` and `backwardTiles` as the
/// C++ API's CompileOptions does (it and --attn-pipeline's textual options).
/// The one place that copies them, so that both forward every option.
template <typename Options>
AttnPipelineOptions makeAttnPipelineOptions(llvm::StringRef arch,
                                            const Options &options) {
  AttnPipelineOptions pipeline;
  pipeline.arch = arch.str();
  pipeline.variant = options.variant;
  pipeline.blockM = options.blockM;
  pipeline.blockN = options.blockN;
  pipeline.numWarps = options.numWarps;
  pipeline.stages = options.stages;
  pipeline.unfused = options.unfused;
  pipeline.backward = options.backward;
  pipeline.biasGrad = options.backwardBiasGrad;
  pipeline.backwardVariant = options.backwardVariant;
  pipeline.backwardTiles = options.backwardTiles;
  return pipeline;
}

/// Adds the pipeline to `pm`: attn-canonicalize-graph, then attn-fuse,
/// attn-canonicalize-graph, (with `backward`) attn-derive-backward and
/// attn-select-config, or attn-lower-unfused when `options.unfused`.
void buildAttnPipeline(OpPassManager &pm, const AttnPipelineOptions &options);

/// Registers --attn-pipeline.
void registerAttnPipelines();

#define GEN_PASS_REGISTRATION
#include "attn/Transforms/Passes.h.inc"

} // namespace mlir::attn

#endif // ATTN_TRANSFORMS_PASSES_H
