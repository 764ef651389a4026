//===- AttnOps.h - attn operations ------------------------------*- C++ -*-===//

#ifndef ATTN_DIALECT_ATTN_IR_ATTNOPS_H
#define ATTN_DIALECT_ATTN_IR_ATTNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "attn/Dialect/Attn/IR/AttnAttrs.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Variants/KernelVariants.h"

#define GET_OP_CLASSES
#include "attn/Dialect/Attn/IR/AttnOps.h.inc"

#endif // ATTN_DIALECT_ATTN_IR_ATTNOPS_H
