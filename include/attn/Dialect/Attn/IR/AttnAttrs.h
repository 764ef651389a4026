//===- AttnAttrs.h - attn attributes ----------------------------*- C++ -*-===//

#ifndef ATTN_DIALECT_ATTN_IR_ATTNATTRS_H
#define ATTN_DIALECT_ATTN_IR_ATTNATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/ArrayRef.h"

#define GET_ATTRDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnAttrs.h.inc"

namespace mlir::attn {
/// Kernel template families a ConfigAttr may name.
llvm::ArrayRef<llvm::StringRef> getKnownVariants();
} // namespace mlir::attn

#endif // ATTN_DIALECT_ATTN_IR_ATTNATTRS_H
