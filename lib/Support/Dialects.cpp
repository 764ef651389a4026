//===- Dialects.cpp - The dialects of attn's inputs -----------------------===//

#include "attn/Support/Dialects.h"

#include "attn/Dialect/Attn/IR/AttnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

void mlir::attn::registerAttnDialects(DialectRegistry &registry) {
  registry.insert<AttnDialect, arith::ArithDialect, func::FuncDialect,
                  math::MathDialect, tensor::TensorDialect>();
}
