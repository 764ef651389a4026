//===- TranslateToCuda.cpp - The --attn-to-cuda translation ---------------===//

#include "attn/Support/Dialects.h"
#include "attn/Target/Cuda/EmitCuda.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

void mlir::attn::registerToCudaTranslation() {
  TranslateFromMLIRRegistration registration(
      "attn-to-cuda",
      "Emit one CUDA C++ translation unit per configured attn.flash, "
      "attn.flash_bwd and attn.kernel (separated by '// -----' lines)",
      [](Operation *module, raw_ostream &os) -> LogicalResult {
        bool first = true, any = false;
        WalkResult result = module->walk([&](Operation *op) {
          FailureOr<::attn::KernelSpec> spec;
          if (auto flash = dyn_cast<FlashOp>(op))
            spec = emitFlashKernel(flash);
          else if (auto backward = dyn_cast<FlashBwdOp>(op))
            spec = emitFlashBackwardKernel(backward);
          else if (auto kernel = dyn_cast<KernelOp>(op))
            spec = emitGraphKernel(kernel);
          else
            return WalkResult::advance();
          if (failed(spec))
            return WalkResult::interrupt();
          if (!first)
            os << "\n// -----\n\n";
          os << spec->source;
          first = false;
          any = true;
          return WalkResult::advance();
        });
        if (result.wasInterrupted())
          return failure();
        if (!any)
          return module->emitError()
                 << "no attn.flash or attn.kernel to emit; run --attn-pipeline "
                    "or --attn-lower-unfused first";
        return success();
      },
      [](DialectRegistry &registry) { registerAttnDialects(registry); });
}
