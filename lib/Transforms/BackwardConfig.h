//===- BackwardConfig.h - Tiles of attn.flash_bwd ---------------*- C++ -*-===//
//
// Private to MLIRAttnTransforms: --attn-select-config configures the
// backward with this as well as the forward.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_TRANSFORMS_BACKWARDCONFIG_H
#define ATTN_LIB_TRANSFORMS_BACKWARDCONFIG_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Transforms/Passes.h"

namespace mlir::attn {

/// Sets the #attn.backward_config of `op` (kept if it has one): of the
/// first backward variant (KernelVariants.h) that the arch runs and that
/// supports the operands, the first candidate tile configuration that
/// splits the head dims and fits the arch's shared memory and the
/// variant's register limits. Reports operands no backward kernel supports.
/// A non-empty `forcedVariant` (a name of the table) is the only variant
/// tried, and `forcedTiles` the only candidate; either replaces a config the
/// op has, and an error says why it cannot serve.
LogicalResult
configureBackward(FlashBwdOp op, const ArchInfo &arch,
                  StringRef forcedVariant = "",
                  std::optional<::attn::TileConfig> forcedTiles = std::nullopt,
                  StringRef excludedVariant = "");

/// The #attn.backward_config the model picks for `op` on `arch` among the
/// backward variants other than `excluded`: a backward plan's spill config,
/// which the runtime compiles where ptxas spills the model's choice. Null
/// if none serves; the op's own config stays.
BackwardConfigAttr selectBackwardConfigWithout(FlashBwdOp op,
                                               const ArchInfo &arch,
                                               llvm::StringRef excluded);

/// Parses the backward-tiles override "MxNxWARPSxSTAGES" (positive
/// integers); nullopt and `error` set if it is malformed.
std::optional<::attn::TileConfig> parseBackwardTiles(StringRef text,
                                                     std::string &error);


} // namespace mlir::attn

#endif // ATTN_LIB_TRANSFORMS_BACKWARDCONFIG_H
