//===- Parser.cpp - Parsing attn's inputs safely --------------------------===//

#include "attn/Support/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

namespace {

bool isBytecode(StringRef text) { return text.starts_with("ML\xef" "R"); }

char closerOf(char opener) {
  switch (opener) {
  case '(': return ')';
  case '[': return ']';
  case '{': return '}';
  default: return '>';
  }
}

std::string excessMessage(unsigned limit) {
  return "brackets nest deeper than " + std::to_string(limit) +
         " levels; attn rejects such input rather than overflow the parser's "
         "stack";
}

} // namespace

std::optional<size_t> mlir::attn::findExcessiveNesting(StringRef text,
                                                       unsigned limit) {
  if (isBytecode(text))
    return std::nullopt;
  // Openers not yet closed; only the top can be closed.
  std::string open;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i < e && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      open.push_back(c);
      if (open.size() > limit)
        return i;
      continue;
    }
    bool arrowOrCompare =
        c == '>' && ((i > 0 && text[i - 1] == '-') ||
                     (i + 1 < e && text[i + 1] == '='));
    if ((c == ')' || c == ']' || c == '}' || c == '>') && !arrowOrCompare &&
        !open.empty() && closerOf(open.back()) == c)
      open.pop_back();
  }
  return std::nullopt;
}

LogicalResult mlir::attn::checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                            llvm::raw_ostream &os) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<size_t> offset = findExcessiveNesting(buffer->getBuffer());
  if (!offset)
    return success();
  sourceMgr.PrintMessage(
      os, llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *offset),
      llvm::SourceMgr::DK_Error, excessMessage(kMaxNestingDepth));
  return failure();
}

OwningOpRef<ModuleOp> mlir::attn::parseAttnSource(
    const llvm::SourceMgr &sourceMgr, MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (std::optional<size_t> offset =
          findExcessiveNesting(buffer->getBuffer())) {
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *offset));
    emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(), line,
                                  column))
        << excessMessage(kMaxNestingDepth);
    return nullptr;
  }
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}
