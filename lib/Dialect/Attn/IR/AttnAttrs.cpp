//===- AttnAttrs.cpp - attn attributes ------------------------------------===//

#include "attn/Dialect/Attn/IR/AttnAttrs.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Variants/KernelVariants.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

#define GET_ATTRDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnAttrs.cpp.inc"

void AttnDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "attn/Dialect/Attn/IR/AttnAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MaskAttr
//===----------------------------------------------------------------------===//

Attribute MaskAttr::parse(AsmParser &parser, Type) {
  bool causal = false, bottomRight = false, keyPadding = false, keep = false,
       bias = false, alignsToTensor = false;
  int64_t windowLeft = -1, windowRight = -1;
  bool sawWindow = false;

  auto parseItem = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    auto setOnce = [&](bool &flag) -> ParseResult {
      if (flag)
        return parser.emitError(loc) << "mask item '" << keyword
                                     << "' given twice";
      flag = true;
      return success();
    };
    if (keyword == "causal")
      return setOnce(causal);
    if (keyword == "bottom_right") {
      if (setOnce(bottomRight))
        return failure();
      if (failed(parser.parseOptionalEqual()))
        return success();
      SMLoc alignLoc = parser.getCurrentLocation();
      StringRef alignment;
      if (parser.parseKeyword(&alignment))
        return failure();
      if (alignment != "tensor")
        return parser.emitError(alignLoc)
               << "unknown bottom_right alignment '" << alignment
               << "'; expected 'tensor' (plain bottom_right aligns to each "
                  "sequence's length)";
      alignsToTensor = true;
      return success();
    }
    if (keyword == "key_padding")
      return setOnce(keyPadding);
    if (keyword == "keep")
      return setOnce(keep);
    if (keyword == "bias")
      return setOnce(bias);
    if (keyword == "window") {
      if (setOnce(sawWindow) || parser.parseEqual() || parser.parseLSquare() ||
          parser.parseInteger(windowLeft) || parser.parseComma() ||
          parser.parseInteger(windowRight) || parser.parseRSquare())
        return failure();
      return success();
    }
    return parser.emitError(loc)
           << "unknown mask item '" << keyword
           << "'; expected causal, bottom_right, window, key_padding, keep or "
              "bias";
  };

  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    if (parser.parseCommaSeparatedList(parseItem) || parser.parseGreater())
      return {};
  }
  if (sawWindow && windowLeft < 0 && windowRight < 0) {
    parser.emitError(parser.getCurrentLocation())
        << "window = [-1, -1] bounds neither side; drop it";
    return {};
  }
  return parser.getChecked<MaskAttr>(parser.getContext(), causal, bottomRight,
                                     windowLeft, windowRight, keyPadding, keep,
                                     bias, alignsToTensor);
}

void MaskAttr::print(AsmPrinter &printer) const {
  SmallVector<std::string> items;
  if (getCausal())
    items.push_back("causal");
  if (hasWindow())
    items.push_back("window = [" + std::to_string(getWindowLeft()) + ", " +
                    std::to_string(getWindowRight()) + "]");
  if (getBottomRight())
    items.push_back(getAlignsToTensor() ? "bottom_right = tensor"
                                        : "bottom_right");
  if (getKeyPadding())
    items.push_back("key_padding");
  if (getKeep())
    items.push_back("keep");
  if (getBias())
    items.push_back("bias");
  printer << "<";
  llvm::interleaveComma(items, printer);
  printer << ">";
}

LogicalResult
MaskAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                 bool causal, bool bottomRight, int64_t windowLeft,
                 int64_t windowRight, bool keyPadding, bool, bool,
                 bool alignsToTensor) {
  if (windowLeft < -1 || windowRight < -1)
    return emitError() << "window bounds must be -1 (unbounded) or >= 0, got ["
                       << windowLeft << ", " << windowRight << "]";
  // The kernels take the bounds as 32-bit integers.
  constexpr int64_t maxBound = std::numeric_limits<int32_t>::max();
  if (windowLeft > maxBound || windowRight > maxBound)
    return emitError() << "window bounds must be at most " << maxBound
                       << ", got [" << windowLeft << ", " << windowRight << "]";
  bool window = windowLeft >= 0 || windowRight >= 0;
  if (bottomRight && !causal && !window)
    return emitError()
           << "bottom_right aligns causal or window, but the mask has neither";
  if (alignsToTensor && !bottomRight)
    return emitError() << "a tensor alignment needs bottom_right";
  // Without key padding every sequence has the tensor's keys: one spelling.
  if (alignsToTensor && !keyPadding)
    return emitError() << "bottom_right = tensor differs from bottom_right "
                          "only with key_padding; drop '= tensor'";
  return success();
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> mlir::attn::getKnownVariants() {
  static const SmallVector<StringRef> variants = [] {
    SmallVector<StringRef> names;
    for (const ::attn::KernelVariant &v : ::attn::kernelVariants())
      names.push_back(StringRef(v.name.data(), v.name.size()));
    return names;
  }();
  return variants;
}

LogicalResult
ConfigAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   StringRef variant, int64_t blockM, int64_t blockN,
                   int64_t numWarps, int64_t stages) {
  const ::attn::KernelVariant *v = ::attn::findKernelVariant(variant);
  if (!v)
    return emitError() << "unknown variant \"" << variant
                       << "\"; known variants: "
                       << ::attn::knownVariantNames();
  std::string why = v->checkTiles({blockM, blockN, numWarps, stages});
  if (!why.empty())
    return emitError() << why;
  return success();
}

//===----------------------------------------------------------------------===//
// BackwardConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult BackwardConfigAttr::verify(
    llvm::function_ref<InFlightDiagnostic()> emitError, StringRef variant,
    int64_t blockM, int64_t blockN, int64_t numWarps, int64_t stages) {
  const ::attn::BackwardKernelVariant *v =
      ::attn::findBackwardKernelVariant(variant);
  if (!v)
    return emitError() << "unknown backward variant \"" << variant
                       << "\"; known backward variants: "
                       << ::attn::knownBackwardVariantNames();
  std::string why = v->checkTiles({blockM, blockN, numWarps, stages});
  if (!why.empty())
    return emitError() << why;
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchPlanAttr
//===----------------------------------------------------------------------===//

LogicalResult
LaunchPlanAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                       DenseI64ArrayAttr spillBlockN, ConfigAttr longKeys,
                       DenseI64ArrayAttr longKeysSpillBlockN,
                       ConfigAttr cpAsync,
                       DenseI64ArrayAttr cpAsyncSpillBlockN) {
  for (auto [name, list] :
       {std::pair<StringRef, DenseI64ArrayAttr>{"spill_block_n", spillBlockN},
        {"long_keys_spill_block_n", longKeysSpillBlockN},
        {"cp_async_spill_block_n", cpAsyncSpillBlockN}}) {
    if (!list)
      continue;
    ArrayRef<int64_t> values = list.asArrayRef();
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i] <= 0 || (i && values[i] >= values[i - 1]))
        return emitError() << name
                           << " must list positive key tiles, most keys "
                              "first (each below the one before)";
  }
  if (longKeysSpillBlockN && !longKeys)
    return emitError() << "long_keys_spill_block_n needs long_keys";
  if (cpAsyncSpillBlockN && !cpAsync)
    return emitError() << "cp_async_spill_block_n needs cp_async";
  if (cpAsync) {
    const ::attn::KernelVariant *v =
        ::attn::findKernelVariant(cpAsync.getVariant());
    if (v && v->persistent)
      return emitError() << "cp_async names the persistent (TMA) variant "
                         << cpAsync.getVariant()
                         << "; it must load with cp.async";
  }
  return success();
}

SmallVector<ConfigAttr> LaunchPlanAttr::narrowed(ConfigAttr config,
                                                 DenseI64ArrayAttr blockNs) {
  SmallVector<ConfigAttr> configs;
  if (!config || !blockNs)
    return configs;
  for (int64_t blockN : blockNs.asArrayRef())
    configs.push_back(ConfigAttr::get(config.getContext(), config.getVariant(),
                                      config.getBlockM(), blockN,
                                      config.getNumWarps(),
                                      config.getStages()));
  return configs;
}
