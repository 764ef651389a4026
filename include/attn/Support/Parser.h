//===- Parser.h - Parsing attn's inputs safely ------------------*- C++ -*-===//
//
// MLIR's parser recurses once per nested bracket, so a few thousand nested
// brackets overflow the stack; where the text comes from a caller (the C
// API, a tool's input), that would kill the process. Text is pre-scanned and
// rejected, with a located error, when it nests deeper than
// kMaxNestingDepth.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_SUPPORT_PARSER_H
#define ATTN_SUPPORT_PARSER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace mlir::attn {

/// The deepest nesting of brackets ((), [], {}, <>) that attn parses. Real
/// inputs nest about 10 deep; 256 levels stay far within the stack of a
/// thread (and of a sanitizer build).
constexpr unsigned kMaxNestingDepth = 256;

/// The offset of the first opening bracket that nests deeper than `limit`,
/// or nullopt. Brackets in string literals and `//` comments do not count; a
/// `>` of `->` or `>=` closes nothing. The count is an upper bound of the
/// parser's recursion: a closing bracket only closes a matching opener.
/// MLIR bytecode (binary) is not scanned.
std::optional<size_t> findExcessiveNesting(StringRef text,
                                           unsigned limit = kMaxNestingDepth);

/// Checks the main buffer of `sourceMgr`; on excess, prints
/// "file:line:col: error: ..." to `os` and fails.
LogicalResult checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                llvm::raw_ostream &os);

/// Checks the nesting of the main buffer of `sourceMgr` (a located error
/// through `context`'s diagnostics on excess), then parses it as a module.
/// Null on any error.
OwningOpRef<ModuleOp> parseAttnSource(const llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context);

} // namespace mlir::attn

#endif // ATTN_SUPPORT_PARSER_H
