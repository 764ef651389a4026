//===- ElementTypes.cpp - Dialect types and attn::ElementType -------------===//

#include "attn/Support/ElementTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

std::optional<::attn::ElementType> mlir::attn::toElementType(Type type) {
  if (type.isF16())
    return ::attn::ElementType::F16;
  if (type.isBF16())
    return ::attn::ElementType::BF16;
  if (type.isF32())
    return ::attn::ElementType::F32;
  if (type.isSignlessInteger(32))
    return ::attn::ElementType::I32;
  if (type.isSignlessInteger(64))
    return ::attn::ElementType::I64;
  if (type.isSignlessInteger(1))
    return ::attn::ElementType::Bool;
  return std::nullopt;
}

Type mlir::attn::toMLIRType(::attn::ElementType element, MLIRContext *context) {
  Builder builder(context);
  switch (element) {
  case ::attn::ElementType::F16: return builder.getF16Type();
  case ::attn::ElementType::BF16: return builder.getBF16Type();
  case ::attn::ElementType::F32: return builder.getF32Type();
  case ::attn::ElementType::I32: return builder.getI32Type();
  case ::attn::ElementType::I64: return builder.getI64Type();
  case ::attn::ElementType::Bool: return builder.getI1Type();
  }
  return Type();
}
