//===- ElementTypes.h - Dialect types and attn::ElementType -----*- C++ -*-===//

#ifndef ATTN_SUPPORT_ELEMENTTYPES_H
#define ATTN_SUPPORT_ELEMENTTYPES_H

#include "attn/Runtime/ElementType.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir {
class MLIRContext;

namespace attn {

/// The attn::ElementType of an MLIR scalar type (f16, bf16, f32, i32, i1),
/// or nullopt for any other.
std::optional<::attn::ElementType> toElementType(Type type);

/// The MLIR type of an element type.
Type toMLIRType(::attn::ElementType element, MLIRContext *context);

} // namespace attn
} // namespace mlir

#endif // ATTN_SUPPORT_ELEMENTTYPES_H
