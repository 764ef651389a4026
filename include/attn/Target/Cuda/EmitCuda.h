//===- EmitCuda.h - attn.flash and attn.kernel to CUDA C++ ------*- C++ -*-===//

#ifndef ATTN_TARGET_CUDA_EMITCUDA_H
#define ATTN_TARGET_CUDA_EMITCUDA_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Runtime/KernelSpec.h"
#include "mlir/Support/LLVM.h"

namespace mlir::attn {

/// Emits the CUDA C++ translation unit of a configured attn.flash: includes
/// of kernels-templates/, the configuration struct (typed constants and the
/// score_mod as a device function), and an extern "C" __global__ entry,
/// with the tiles of `config` (one of its launch plan's), or without one of
/// the op's own. Reports unsupported ops or a missing config on `op` and
/// fails.
FailureOr<::attn::KernelSpec> emitFlashKernel(FlashOp op,
                                              ConfigAttr config = {});

/// Emits the CUDA C++ translation unit of a configured attn.flash_bwd: the
/// K/V-stationary kernel (the entry), and _dq (deterministic dQ), _pre and
/// _convert, with the tiles of `config` (its plan's spill config), or without
/// one of the op's own. Reports what the kernels do not support on `op` and
/// fails.
FailureOr<::attn::KernelSpec>
emitFlashBackwardKernel(FlashBwdOp op, BackwardConfigAttr config = {});

/// Emits the CUDA C++ translation unit of an attn.kernel (one graph op of
/// the unfused path) over kernels-templates/attn/graph_ops.cuh: shapes as
/// constants, a fixed grid. Needs static shapes of rank <= 4; reports what it
/// cannot emit on the op and fails.
FailureOr<::attn::KernelSpec> emitGraphKernel(KernelOp op);

/// Registers `--attn-to-cuda` with mlir-translate's registry.
void registerToCudaTranslation();

} // namespace mlir::attn

#endif // ATTN_TARGET_CUDA_EMITCUDA_H
