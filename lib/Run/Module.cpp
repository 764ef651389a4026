//===- Module.cpp - The function attn-run runs ----------------------------===//

#include "attn/Run/Module.h"
#include "attn/API/CompileModule.h"
#include "attn/Support/Parser.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

namespace attn::run {

Result<LoadedModule> loadModule(const std::string &path) {
  LoadedModule loaded;
  loaded.context = std::make_unique<mlir::MLIRContext>();
  registerAttnDialects(*loaded.context);
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!file)
    return Status(StatusCode::IoError,
                  "cannot read " + path + ": " + file.getError().message());
  loaded.sourceMgr = std::make_unique<llvm::SourceMgr>();
  loaded.sourceMgr->AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  loaded.diagnostics = std::make_unique<mlir::SourceMgrDiagnosticHandler>(
      *loaded.sourceMgr, loaded.context.get());
  // Bounded nesting: a deeply nested file is an error, not a stack overflow.
  loaded.module =
      mlir::attn::parseAttnSource(*loaded.sourceMgr, loaded.context.get());
  if (!loaded.module)
    return Status(StatusCode::ParseError, "");
  loaded.original = loaded.module->clone();
  for (auto f : loaded.module->getOps<mlir::func::FuncOp>())
    if (!f.isExternal()) {
      loaded.func = f;
      break;
    }
  if (!loaded.func)
    return Status(StatusCode::InvalidArgument,
                  path + " has no function with a body");
  loaded.originalFunc =
      loaded.original->lookupSymbol<mlir::func::FuncOp>(loaded.func.getSymName());
  return loaded;
}

} // namespace attn::run
