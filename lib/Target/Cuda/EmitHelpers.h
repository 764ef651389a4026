//===- EmitHelpers.h - What the CUDA emitters share -------------*- C++ -*-===//
//
// Private to MLIRAttnTargetCuda: the flash emitters (EmitCuda.cpp,
// EmitFlashBackward.cpp) and the graph-op emitter (EmitGraphKernel.cpp)
// print literals, element types and score_mod bodies the same way.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_TARGET_CUDA_EMITHELPERS_H
#define ATTN_LIB_TARGET_CUDA_EMITHELPERS_H

#include "attn/Dialect/Attn/IR/AttnAttrs.h"
#include "attn/Runtime/KernelSpec.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/APFloat.h"

#include <string>

namespace mlir::attn::detail {

/// A float literal that round-trips exactly, as a bit pattern.
std::string floatLiteral(APFloat value);

/// Prints the static member function `name`(float score, long long b,
/// long long h, long long q_idx, long long kv_idx, const void *const
/// *captures) of an emitted Config: the ops of a score_mod `region`
/// (captures[i] points to its capture i), or, without one, a function that
/// returns `identity` (the score; 1.f for the derivative of the identity).
/// Reports ops and types the GPU cannot run on the op and fails.
LogicalResult printScoreModFunction(Region *region, raw_ostream &os,
                                    StringRef name = "scoreMod",
                                    StringRef identity = "score");

/// The element type of a tensor the kernels read or write, or an error on
/// `op`.
FailureOr<::attn::ElementType> elementTypeOf(Operation *op, Type type);

/// The templates' name of an element type (attn::BF16, attn::F16, float).
const char *templateElement(::attn::ElementType type);

const char *boolText(bool value);

/// The variant, tiles and threads of an #attn.config or
/// #attn.backward_config.
template <class ConfigAttrT>
void setTiles(::attn::KernelSpec &spec, ConfigAttrT config) {
  spec.variant = config.getVariant().str();
  spec.blockM = config.getBlockM();
  spec.blockN = config.getBlockN();
  spec.numWarps = config.getNumWarps();
  spec.stages = config.getStages();
  spec.threads = spec.numWarps * 32;
}

/// The mask items of `mask` and, with a bias operand, its element type (an
/// error on `op` where the kernels cannot read it).
LogicalResult setMask(Operation *op, MaskAttr mask, Value bias,
                      ::attn::KernelSpec &spec);

/// Prints the Config members that the forward's and the backward's kernels
/// both take from `spec`: element types, head dims, tiles, and the mask
/// items and score_mod flag that the mask policy (mask.cuh) reads.
void printSharedConfig(const ::attn::KernelSpec &spec, raw_ostream &os);

/// The kernel-name part of the positional masks: _causal, _causalbr (and
/// _causalbrt with bottom_right = tensor), _window, _windowbr.
std::string positionalMaskName(const ::attn::KernelSpec &spec);

} // namespace mlir::attn::detail

#endif // ATTN_LIB_TARGET_CUDA_EMITHELPERS_H
