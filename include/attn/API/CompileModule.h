//===- CompileModule.h - The C++ API on an MLIR module ----------*- C++ -*-===//
//
// For tools that hold the module themselves (attn-run keeps the unfused
// function as the reference); library users call attn::compileSource.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_API_COMPILEMODULE_H
#define ATTN_API_COMPILEMODULE_H

#include "attn/attn.h"

#include "mlir/IR/BuiltinOps.h"

namespace attn {

/// Runs the pipeline on `module` (in place) and builds one kernel per
/// attn.flash and attn.kernel, in walk order. Errors and remarks of the passes are collected
/// into the status and CompiledModule::remarks.
Result<CompiledModule> compileModule(Context &context, mlir::ModuleOp module,
                                     const CompileOptions &options);

/// Registers the dialects attn's inputs use (mlir::attn::registerAttnDialects:
/// attn, arith, func, math, tensor) with `context` and loads them.
void registerAttnDialects(mlir::MLIRContext &context);

} // namespace attn

#endif // ATTN_API_COMPILEMODULE_H
