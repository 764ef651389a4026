//===- Module.h - The function attn-run runs --------------------*- C++ -*-===//
//
// attn-run's input: a parsed, verified module, a copy of it kept as it was
// (the float64 reference evaluates the original graph), and its function.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUN_MODULE_H
#define ATTN_RUN_MODULE_H

#include "attn/Runtime/Status.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace attn::run {

struct LoadedModule {
  std::unique_ptr<mlir::MLIRContext> context;
  /// The file, and the handler that prints any later diagnostic (e.g. of
  /// the reference) at its line in it.
  std::unique_ptr<llvm::SourceMgr> sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> diagnostics;
  /// What the pipeline transforms, and the untouched copy.
  mlir::OwningOpRef<mlir::ModuleOp> module, original;
  /// The first function with a body, in each.
  mlir::func::FuncOp func, originalFunc;
};

/// Parses and verifies `path` ("-": stdin) with attn's dialects. Parser and
/// verifier diagnostics go to stderr as they are found (file:line:col);
/// the status is then a ParseError with an empty message. A missing file
/// or a module without a function is an error with a message.
Result<LoadedModule> loadModule(const std::string &path);

} // namespace attn::run

#endif // ATTN_RUN_MODULE_H
