//===- Check.cpp - Outputs against the float64 reference ------------------===//

#include "attn/Run/Check.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include <chrono>
#include <cmath>

namespace attn::run {

std::vector<std::pair<int64_t, int64_t>>
sampleSlices(int64_t batch, int64_t heads, unsigned maxSlices,
             std::mt19937_64 &rng) {
  std::vector<std::pair<int64_t, int64_t>> slices;
  if (!maxSlices || uint64_t(batch * heads) <= maxSlices)
    return slices;
  slices = {{0, 0}, {batch - 1, heads - 1}};
  std::uniform_int_distribution<int64_t> bd(0, batch - 1), hd(0, heads - 1);
  while (slices.size() < maxSlices)
    slices.emplace_back(bd(rng), hd(rng));
  return slices;
}

OutputCheck checkOutput(const HostTensor &got, const HostTensor &expected,
                        double tolerance) {
  OutputCheck c;
  c.shape = got.shape;
  // Every element the sample covers must have been written.
  for (size_t j = 0; j < got.data.size() && j < expected.data.size(); ++j)
    if (!std::isnan(expected.data[j]) && std::isnan(got.data[j]))
      ++c.unwritten;
  c.error = mlir::attn::reference::relativeError(got, expected, &c.compared);
  c.pass = c.unwritten == 0 && c.error <= tolerance &&
           (c.compared > 0 || expected.data.empty());
  return c;
}

namespace {

/// The sequences of `varlen`'s ragged batch that hold queries, read from
/// `inputs` when its cu_seqlens_q is an argument of `func`; all `batch` of
/// them otherwise.
std::vector<int64_t> sequencesWithQueries(mlir::func::FuncOp func,
                                          mlir::attn::FlashOp varlen,
                                          const std::vector<HostTensor> &inputs,
                                          int64_t batch) {
  std::vector<int64_t> sequences;
  auto arg = mlir::dyn_cast<mlir::BlockArgument>(varlen.getCuSeqlensQ());
  const HostTensor *offsets = nullptr;
  if (arg && arg.getOwner()->getParentOp() == func.getOperation() &&
      arg.getArgNumber() < inputs.size())
    offsets = &inputs[arg.getArgNumber()];
  for (int64_t b = 0; b < batch; ++b)
    if (!offsets || int64_t(offsets->data.size()) <= b + 1 ||
        offsets->data[b + 1] > offsets->data[b])
      sequences.push_back(b);
  return sequences;
}

/// The reference's options for the sample of `func`'s first result.
mlir::attn::reference::Options sampleOptions(mlir::func::FuncOp func,
                                             const std::vector<HostTensor> &inputs,
                                             unsigned maxSlices,
                                             std::mt19937_64 &rng) {
  mlir::attn::reference::Options options;
  // A training step's gradients are checked against those of its stored
  // forward output, as the kernels compute them.
  options.roundStoredOutput = true;
  auto results = func.getFunctionType().getResults();
  auto firstType = results.empty()
                       ? mlir::RankedTensorType()
                       : mlir::dyn_cast<mlir::RankedTensorType>(results.front());
  // A ragged batch's slices are (sequence, head) pairs.
  mlir::attn::FlashOp varlen;
  func.walk([&](mlir::func::ReturnOp ret) {
    if (ret.getNumOperands())
      if (auto flash =
              ret.getOperand(0).getDefiningOp<mlir::attn::FlashOp>();
          flash && flash.isVarlen())
        varlen = flash;
  });
  if (varlen && !varlen.getCuSeqlensQ().getType().isDynamicDim(0)) {
    const int64_t heads = varlen.getHeadsQ();
    const int64_t batch = varlen.getCuSeqlensQ().getType().getDimSize(0) - 1;
    // The sample draws from the sequences that hold queries: one of no
    // rows compares nothing, and a sample of only those would check nothing.
    std::vector<int64_t> sequences =
        sequencesWithQueries(func, varlen, inputs, batch);
    if (sequences.empty() || int64_t(sequences.size()) == batch) {
      options.slices = sampleSlices(batch, heads, maxSlices, rng);
    } else if (maxSlices &&
               uint64_t(sequences.size() * heads) > uint64_t(maxSlices)) {
      options.slices =
          sampleSlices(sequences.size(), heads, maxSlices, rng);
      for (auto &slice : options.slices)
        slice.first = sequences[slice.first];
    } else if (maxSlices) {
      for (int64_t b : sequences)
        for (int64_t head = 0; head < heads; ++head)
          options.slices.emplace_back(b, head);
    }
    // A ragged backward reads the forward's o and logsumexp, which the
    // reference computes for the sampled slices only: dk and dv of a
    // sequence need every query head (GQA sums them), dsinks every
    // sequence.
    bool sinksGrad = false, backward = false;
    func.walk([&](mlir::attn::FlashBwdOp op) {
      backward = true;
      sinksGrad |= op.hasSinksGrad();
    });
    if (sinksGrad) {
      options.slices.clear();
    } else if (backward && !options.slices.empty()) {
      std::vector<std::pair<int64_t, int64_t>> whole;
      for (auto [b, h] : options.slices)
        for (int64_t head = 0; head < heads; ++head)
          whole.emplace_back(b, head);
      options.slices = std::move(whole);
    }
  }
  else if (!varlen && firstType && firstType.getRank() >= 2)
    options.slices = sampleSlices(firstType.getDimSize(0),
                                  firstType.getDimSize(1), maxSlices, rng);
  return options;
}

/// The CPU reference's results of `originalFunc` on the slices `options`
/// samples; `result` gets the time it took and how many slices.
Result<std::vector<HostTensor>>
evaluateReference(mlir::func::FuncOp originalFunc,
                  const std::vector<HostTensor> &inputs,
                  const mlir::attn::reference::Options &options,
                  CheckResult &result) {
  auto start = std::chrono::steady_clock::now();
  auto expected = mlir::attn::reference::evaluate(originalFunc, inputs, options);
  if (mlir::failed(expected))
    return Status(StatusCode::Unsupported,
                  "the CPU reference cannot evaluate this function");
  result.referenceMs = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  result.sampledSlices = options.slices.size();
  return std::move(*expected);
}

} // namespace

Result<CheckResult> checkLoweringAgainstReference(
    mlir::func::FuncOp originalFunc, mlir::func::FuncOp loweredFunc,
    const std::vector<HostTensor> &inputs, unsigned maxSlices,
    std::mt19937_64 &rng, double tolerance) {
  mlir::attn::reference::Options options =
      sampleOptions(originalFunc, inputs, maxSlices, rng);
  auto lowered = mlir::attn::reference::evaluate(loweredFunc, inputs, options);
  if (mlir::failed(lowered))
    return Status(StatusCode::Unsupported,
                  "the CPU reference cannot evaluate the compiled IR");
  std::vector<HostTensor> outputs = std::move(*lowered);
  CheckResult result;
  Result<std::vector<HostTensor>> expected =
      evaluateReference(originalFunc, inputs, options, result);
  if (!expected)
    return expected.status();
  for (size_t i = 0; i < outputs.size() && i < expected->size(); ++i)
    result.outputs.push_back(checkOutput(outputs[i], (*expected)[i], tolerance));
  return result;
}

Result<CheckResult> checkAgainstReference(mlir::func::FuncOp originalFunc,
                                          const std::vector<HostTensor> &inputs,
                                          const std::vector<HostTensor> &outputs,
                                          unsigned maxSlices,
                                          std::mt19937_64 &rng,
                                          double tolerance) {
  mlir::attn::reference::Options options =
      sampleOptions(originalFunc, inputs, maxSlices, rng);
  CheckResult result;
  Result<std::vector<HostTensor>> expected =
      evaluateReference(originalFunc, inputs, options, result);
  if (!expected)
    return expected.status();
  if (expected->size() != outputs.size())
    return Status(StatusCode::InvalidArgument,
                  std::to_string(outputs.size()) + " outputs for " +
                      std::to_string(expected->size()) + " results");
  for (size_t i = 0; i < outputs.size(); ++i)
    result.outputs.push_back(checkOutput(outputs[i], (*expected)[i], tolerance));
  return result;
}

} // namespace attn::run
