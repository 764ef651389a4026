//===- BackwardConfig.h - Tiles of attn.flash_bwd ---------------*- C++ -*-===//
//
// Private to MLIRAttnTransforms: --attn-select-config configures the
// backward with this as well as the forward.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_TRANSFORMS_BACKWARDCONFIG_H
#define ATTN_LIB_TRANSFORMS_BACKWARDCONFIG_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Transforms/Passes.h"

namespace mlir::attn {

/// Sets the #attn.backward_config of `op` (kept if it has one): the first
/// of a preference list of sm80 tiles that fits the arch's shared memory
/// and a register budget without spills. Reports head dims that no backward
/// kernel supports.
LogicalResult configureBackward(FlashBwdOp op, const ArchInfo &arch);

} // namespace mlir::attn

#endif // ATTN_LIB_TRANSFORMS_BACKWARDCONFIG_H
