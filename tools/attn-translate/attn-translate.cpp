//===- attn-translate.cpp - attn's mlir-translate -------------------------===//
//
// Translates configured attn IR to CUDA C++ (--attn-to-cuda).
//
//===----------------------------------------------------------------------===//

#include "attn/Target/Cuda/EmitCuda.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::attn::registerToCudaTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "attn translation: CUDA C++ emission"));
}
