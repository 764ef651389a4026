//===- Dialects.h - The dialects of attn's inputs ---------------*- C++ -*-===//
//
// One list of the dialects that attn's inputs and outputs use, for every
// tool, the C++ API and the tests.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_SUPPORT_DIALECTS_H
#define ATTN_SUPPORT_DIALECTS_H

namespace mlir {
class DialectRegistry;

namespace attn {

/// Inserts attn, arith, func, math and tensor into `registry`.
void registerAttnDialects(DialectRegistry &registry);

} // namespace attn
} // namespace mlir

#endif // ATTN_SUPPORT_DIALECTS_H
