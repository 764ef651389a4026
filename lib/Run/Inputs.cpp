//===- Inputs.cpp - The inputs attn-run runs a function on ----------------===//

#include "attn/Run/Inputs.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Npy/Npy.h"

#include <algorithm>

namespace attn::run {

HostTensor randomInput(mlir::BlockArgument arg, std::mt19937_64 &rng,
                       mlir::func::FuncOp func) {
  auto type = mlir::cast<mlir::RankedTensorType>(arg.getType());
  HostTensor t(std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  DataType element = *dataTypeOf(type.getElementType());
  std::normal_distribution<double> normal(0.0, 1.0);
  std::bernoulli_distribution keep(0.8);
  if (element == DataType::I32 || element == DataType::I64) {
    // Lengths of keys: the key sequence of the attention that uses them.
    int64_t maxLength = 1;
    func.walk([&](mlir::Operation *op) {
      for (mlir::Value operand : op->getOperands()) {
        if (operand != arg || op->getNumOperands() == 0)
          continue;
        // Fused attention: the keys are v's rows; a graph op's operand 0
        // is the score tensor, keys last.
        mlir::Value keys = op->getOperand(0);
        int64_t keysDim = 3;
        if (mlir::isa<mlir::attn::FlashOp, mlir::attn::FlashBwdOp>(op)) {
          keys = op->getOperand(2);
          keysDim = 2;
        }
        if (auto type = mlir::dyn_cast<mlir::RankedTensorType>(keys.getType()))
          if (type.getRank() == 4)
            maxLength = std::max<int64_t>(maxLength, type.getDimSize(keysDim));
      }
    });
    std::uniform_int_distribution<int64_t> length(1, maxLength);
    for (double &x : t.data)
      x = double(length(rng));
    return t;
  }
  for (double &x : t.data)
    x = element == DataType::Bool ? (keep(rng) ? 1.0 : 0.0)
                                  : representable(element, normal(rng));
  return t;
}

Result<std::vector<HostTensor>> makeInputs(mlir::func::FuncOp func,
                                           const std::vector<std::string> &npyFiles,
                                           std::mt19937_64 &rng) {
  mlir::Block &body = func.getBody().front();
  if (!npyFiles.empty() && npyFiles.size() != body.getNumArguments())
    return Status(StatusCode::InvalidArgument,
                  std::to_string(npyFiles.size()) + " .npy files for " +
                      std::to_string(body.getNumArguments()) + " arguments");
  std::vector<HostTensor> inputs;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto type = mlir::dyn_cast<mlir::RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || !dataTypeOf(type.getElementType()))
      return Status(StatusCode::InvalidArgument,
                    "argument " + std::to_string(i) +
                        " must be a static tensor of f16, bf16, f32, i32, "
                        "i64 or i1");
    if (npyFiles.empty()) {
      inputs.push_back(randomInput(arg, rng, func));
      continue;
    }
    Result<npy::Array> loaded = npy::read(npyFiles[i]);
    if (!loaded)
      return loaded.status();
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    if (loaded->shape != shape)
      return Status(StatusCode::InvalidArgument,
                    npyFiles[i] + " has shape " + shapeString(loaded->shape) +
                        ", argument " + std::to_string(i) + " is " +
                        shapeString(shape));
    HostTensor t(shape);
    DataType element = *dataTypeOf(type.getElementType());
    for (size_t j = 0; j < t.data.size(); ++j)
      t.data[j] = representable(element, loaded->values[j]);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

} // namespace attn::run
