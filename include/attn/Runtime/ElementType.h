//===- ElementType.h - The element types of attn's tensors ------*- C++ -*-===//
//
// The one enumeration of element types: the runtime's kernel specs, the
// public API (attn::DataType is this type) and the tools use it; the
// dialect's types map to it with mlir::attn::toElementType
// (attn/Support/ElementTypes.h). Plain C++: the runtime has no MLIR
// dependency.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_ELEMENTTYPE_H
#define ATTN_RUNTIME_ELEMENTTYPE_H

namespace attn {

/// f16, bf16 and f32 are what kernels compute on; i32 (key-padding lengths),
/// i64 (score_mod captures) and bool (keep masks) are operands.
enum class ElementType { F16, BF16, F32, I32, I64, Bool };

/// The name of an element type as the dialect spells it ("bf16", "i1").
const char *elementTypeName(ElementType type);
/// Bytes per element.
int elementTypeBytes(ElementType type);

} // namespace attn

#endif // ATTN_RUNTIME_ELEMENTTYPE_H
