//===- AttnAttrs.cpp - attn attributes ------------------------------------===//

#include "attn/Dialect/Attn/IR/AttnAttrs.h"
#include "attn/Dialect/Attn/IR/AttnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

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
       bias = false;
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
    if (keyword == "bottom_right")
      return setOnce(bottomRight);
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
                                     bias);
}

void MaskAttr::print(AsmPrinter &printer) const {
  SmallVector<std::string> items;
  if (getCausal())
    items.push_back("causal");
  if (hasWindow())
    items.push_back("window = [" + std::to_string(getWindowLeft()) + ", " +
                    std::to_string(getWindowRight()) + "]");
  if (getBottomRight())
    items.push_back("bottom_right");
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
                 int64_t windowRight, bool, bool, bool) {
  if (windowLeft < -1 || windowRight < -1)
    return emitError() << "window bounds must be -1 (unbounded) or >= 0, got ["
                       << windowLeft << ", " << windowRight << "]";
  bool window = windowLeft >= 0 || windowRight >= 0;
  if (bottomRight && !causal && !window)
    return emitError()
           << "bottom_right aligns causal or window, but the mask has neither";
  return success();
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> mlir::attn::getKnownVariants() {
  static const StringRef variants[] = {"sm80", "sm90"};
  return variants;
}

LogicalResult
ConfigAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   StringRef variant, int64_t blockM, int64_t blockN,
                   int64_t numWarps, int64_t stages) {
  if (!llvm::is_contained(getKnownVariants(), variant)) {
    InFlightDiagnostic diag = emitError();
    diag << "unknown variant \"" << variant << "\"; known variants: ";
    llvm::interleaveComma(getKnownVariants(), diag);
    return diag;
  }
  if (!llvm::is_contained({1, 2, 4, 8}, numWarps))
    return emitError() << "num_warps must be 1, 2, 4 or 8, got " << numWarps;
  // Each warp owns 16 query rows of an m16n8k16 tile.
  if (blockM <= 0 || blockM % (16 * numWarps) != 0)
    return emitError() << "block_m must be a positive multiple of 16 * "
                          "num_warps = "
                       << 16 * numWarps << ", got " << blockM;
  if (blockN <= 0 || blockN % 16 != 0)
    return emitError() << "block_n must be a positive multiple of 16, got "
                       << blockN;
  if (stages < 1 || stages > 4)
    return emitError() << "stages must be between 1 and 4, got " << stages;
  if (variant == "sm90") {
    // wgmma: a warpgroup (4 warps) owns 64 rows; S is one m64nN product.
    if (numWarps % 4 != 0 || blockM != 16 * numWarps)
      return emitError() << "sm90 needs whole warpgroups (num_warps 4 or 8) "
                            "and block_m = 16 * num_warps, got block_m = "
                         << blockM << ", num_warps = " << numWarps;
    if (!llvm::is_contained({64, 128, 192, 256}, blockN))
      return emitError() << "sm90 needs block_n 64, 128, 192 or 256 (one "
                            "wgmma N), got "
                         << blockN;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BackwardConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult BackwardConfigAttr::verify(
    llvm::function_ref<InFlightDiagnostic()> emitError, StringRef variant,
    int64_t blockM, int64_t blockN, int64_t numWarps, int64_t stages) {
  // Only the mma.sync family has backward kernels so far.
  if (variant != "sm80")
    return emitError() << "unknown backward variant \"" << variant
                       << "\"; known backward variants: sm80";
  if (!llvm::is_contained({1, 2, 4, 8}, numWarps))
    return emitError() << "num_warps must be 1, 2, 4 or 8, got " << numWarps;
  // Each warp owns 16 keys of the block's K/V tile.
  if (blockN <= 0 || blockN % 16 != 0 || numWarps % (blockN / 16) != 0)
    return emitError() << "block_n must be 16 times a divisor of num_warps = "
                       << numWarps << " (16 keys per warp), got " << blockN;
  int64_t warpsPerKeyTile = numWarps / (blockN / 16);
  // The warps sharing 16 keys split the query tile in whole m16 tiles; the
  // deterministic dQ kernel gives each 16 query rows a warp (at most 8).
  if (blockM <= 0 || blockM % (16 * warpsPerKeyTile) != 0 || blockM > 128)
    return emitError() << "block_m must be a multiple of 16 * "
                       << warpsPerKeyTile
                       << " (the warps that share 16 keys) and at most 128, "
                          "got "
                       << blockM;
  if (stages < 1 || stages > 2)
    return emitError() << "stages must be 1 or 2, got " << stages;
  return success();
}
