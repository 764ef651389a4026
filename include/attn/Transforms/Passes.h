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

/// Registers --attn-pipeline.
void registerAttnPipelines();

#define GEN_PASS_REGISTRATION
#include "attn/Transforms/Passes.h.inc"

} // namespace mlir::attn

#endif // ATTN_TRANSFORMS_PASSES_H
