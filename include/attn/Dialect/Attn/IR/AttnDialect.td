//===- AttnDialect.td - The attn dialect -------------------*- tablegen -*-===//

#ifndef ATTN_DIALECT_ATTN_IR_ATTNDIALECT_TD
#define ATTN_DIALECT_ATTN_IR_ATTNDIALECT_TD

include "mlir/IR/OpBase.td"

def Attn_Dialect : Dialect {
  let name = "attn";
  let cppNamespace = "::mlir::attn";
  let summary = "Attention graphs and the fused flash-attention op";
  let description = [{
    The `attn` dialect describes scaled dot-product attention twice: as a
    graph of the operations a framework exports (`attn.matmul`, `attn.scale`,
    `attn.mask`, `attn.score_mod`, `attn.softmax`) and as one fused
    `attn.flash` op that the CUDA emitter turns into a tiled kernel.

    Tensors use the BHSD layout: batch, heads, sequence, head dimension.
    Score tensors are `[batch, heads, queries, keys]`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNDIALECT_TD
