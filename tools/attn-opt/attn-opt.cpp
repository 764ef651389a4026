//===- attn-opt.cpp - attn's mlir-opt -------------------------------------===//
//
// Parses, verifies and transforms attn IR: the attn dialect with func, arith,
// math and tensor, and every attn pass and pipeline. The input is checked
// for bracket nesting the parser's stack cannot take before it is parsed.
//
//===----------------------------------------------------------------------===//

#include "attn/Support/Dialects.h"
#include "attn/Support/Parser.h"
#include "attn/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);
  mlir::attn::registerAttnPasses();
  mlir::attn::registerAttnPipelines();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();

  llvm::InitLLVM init(argc, argv);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "attn optimizer: fuses and configures attention graphs\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (mlir::failed(mlir::attn::checkNestingDepth(sourceMgr, llvm::errs())))
      return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
