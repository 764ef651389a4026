//===- Inputs.cpp - The inputs attn-run runs a function on ----------------===//

#include "attn/Run/Inputs.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Npy/Npy.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include <algorithm>

namespace attn::run {

HostTensor randomInput(mlir::BlockArgument arg, std::mt19937_64 &rng,
                       mlir::func::FuncOp func) {
  auto type = mlir::cast<mlir::RankedTensorType>(arg.getType());
  HostTensor t(std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  DataType element = *dataTypeOf(type.getElementType());
  std::normal_distribution<double> normal(0.0, 1.0);
  std::bernoulli_distribution keep(0.8);
  // Offsets of a ragged batch: 0, then the sorted cut points of the packed
  // tokens, then all of them (sequences of 0 tokens included); as many
  // tokens as sequences is a decode batch, one token each.
  int64_t packedTokens = -1;
  func.walk([&](mlir::attn::FlashOp flash) {
    if (flash.getCuSeqlensQ() == arg)
      packedTokens = flash.getQ().getType().getDimSize(0);
    else if (flash.getCuSeqlensK() == arg)
      packedTokens = flash.getK().getType().getDimSize(0);
  });
  // A block table: each sequence's pages drawn without repeats while the
  // cache has pages left (a random permutation, dealt in order).
  int64_t pages = -1;
  func.walk([&](mlir::attn::FlashOp flash) {
    if (flash.getBlockTable() == arg)
      pages = flash.getK().getType().getDimSize(0);
  });
  if (pages > 0 && element == DataType::I32 && type.getRank() == 2) {
    std::vector<int64_t> order(pages);
    for (int64_t i = 0; i < pages; ++i)
      order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i = 0; i < t.data.size(); ++i)
      t.data[i] = double(order[i % pages]);
    return t;
  }
  if (packedTokens >= 0 && element == DataType::I32 && type.getRank() == 1) {
    const int64_t sequences = type.getDimSize(0) - 1;
    std::uniform_int_distribution<int64_t> cut(0, packedTokens);
    for (int64_t b = 0; b <= sequences; ++b)
      t.data[b] = sequences == packedTokens ? double(b)
                  : b == 0                  ? 0.0
                  : b == sequences          ? double(packedTokens)
                                            : double(cut(rng));
    std::sort(t.data.begin(), t.data.end());
    return t;
  }
  if (element == DataType::I32 || element == DataType::I64) {
    // Lengths of keys: the key sequence of the attention that uses them
    // (an attn.mask's scores, or an attn.flash's keys per sequence).
    int64_t maxLength = 1;
    func.walk([&](mlir::Operation *op) {
      for (mlir::Value operand : op->getOperands()) {
        if (operand != arg || op->getNumOperands() == 0)
          continue;
        // Fused attention: its keys per sequence (a ragged or paged batch's
        // too), or v's rows for the backward; a graph op's operand 0 is the
        // score tensor, keys last.
        if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op)) {
          int64_t keys = flash.getKeysPerSequence();
          if (!mlir::ShapedType::isDynamic(keys))
            maxLength = std::max<int64_t>(maxLength, keys);
          continue;
        }
        mlir::Value keys = op->getOperand(0);
        int64_t keysDim = 3;
        if (mlir::isa<mlir::attn::FlashBwdOp>(op)) {
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

Status setInputValues(mlir::func::FuncOp func,
                      const std::vector<std::string> &specs,
                      std::vector<HostTensor> &inputs) {
  for (const std::string &spec : specs) {
    auto bad = [&](const std::string &why) {
      return Status(StatusCode::InvalidArgument,
                    "--set-input=" + spec + ": " + why);
    };
    llvm::StringRef text(spec);
    auto [indexText, valuesText] = text.split(':');
    unsigned index = 0;
    if (indexText.getAsInteger(10, index) || valuesText.empty())
      return bad("expected ARGUMENT:v0,v1,... (an argument index, then its "
                 "values)");
    if (index >= func.getNumArguments() || index >= inputs.size())
      return bad("the function has " + std::to_string(func.getNumArguments()) +
                 " arguments");
    HostTensor &t = inputs[index];
    llvm::SmallVector<llvm::StringRef> parts;
    valuesText.split(parts, ',');
    if (static_cast<int64_t>(parts.size()) != t.numElements())
      return bad("argument " + std::to_string(index) + " (" +
                 shapeString(t.shape) + ") holds " +
                 std::to_string(t.numElements()) + " values, got " +
                 std::to_string(parts.size()));
    DataType element = *dataTypeOf(
        mlir::cast<mlir::RankedTensorType>(func.getArgument(index).getType())
            .getElementType());
    for (auto [i, part] : llvm::enumerate(parts)) {
      double value;
      if (part.trim().getAsDouble(value))
        return bad("'" + part.str() + "' is not a number");
      t.data[i] = representable(element, value);
    }
  }
  return Status::ok();
}

} // namespace attn::run
