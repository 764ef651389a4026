//===- BackwardConfig.cpp - Tiles of attn.flash_bwd -----------------------===//
//
// The backward variants' rules and resource model are rows of the table of
// backward kernel variants (attn/Variants/KernelVariants.h); this picks the
// first variant the arch runs and, of its candidates in order of
// preference, the first that fits.
//
//===----------------------------------------------------------------------===//

#include "BackwardConfig.h"
#include "attn/Variants/KernelVariants.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "attn-select-config"

using namespace mlir;
using namespace mlir::attn;

std::optional<::attn::TileConfig>
mlir::attn::parseBackwardTiles(StringRef text, std::string &error) {
  SmallVector<StringRef, 4> fields;
  text.split(fields, 'x');
  int64_t values[4];
  bool valid = fields.size() == 4;
  for (size_t i = 0; valid && i < 4; ++i)
    valid = !fields[i].getAsInteger(10, values[i]) && values[i] > 0;
  if (!valid) {
    error = "backward-tiles '" + text.str() +
            "' is not BLOCK_MxBLOCK_NxWARPSxSTAGES (four positive integers, "
            "e.g. 64x128x8x2)";
    return std::nullopt;
  }
  return ::attn::TileConfig{values[0], values[1], values[2], values[3]};
}

LogicalResult
mlir::attn::configureBackward(FlashBwdOp op, const ArchInfo &arch,
                              StringRef forcedVariant,
                              std::optional<::attn::TileConfig> forcedTiles,
                              StringRef excludedVariant) {
  if (op.getConfig() && forcedVariant.empty() && !forcedTiles)
    return success();
  ::attn::OperandShape shape = op.getOperandShape();
  std::string why;
  SmallVector<std::string> skipped, tileMismatches;
  for (const ::attn::BackwardKernelVariant &variant :
       ::attn::backwardKernelVariants()) {
    const bool forced = !forcedVariant.empty();
    const StringRef name(variant.name.data(), variant.name.size());
    if ((forced && forcedVariant != name) || name == excludedVariant)
      continue;
    if (arch.computeCapability < variant.minCapability ||
        (variant.archSpecific && arch.name != "sm_90a")) {
      if (forced)
        return op.emitOpError()
               << "backward variant " << forcedVariant << " does not run on "
               << arch.name;
      continue;
    }
    why = variant.checkOperands(shape);
    if (!why.empty()) {
      why = "backward variant " + std::string(variant.name) + " needs " + why;
      if (forced)
        break;
      skipped.push_back(why);
      continue;
    }
    // Forced tiles without a variant go to the first variant whose tile
    // rules take them (each variant's warps have their own roles).
    if (forcedTiles && !forced) {
      if (std::string other = variant.checkTiles(*forcedTiles); !other.empty()) {
        tileMismatches.push_back(std::string(variant.name) + ": " + other);
        continue;
      }
    }
    std::vector<::attn::TileConfig> candidates =
        forcedTiles ? std::vector<::attn::TileConfig>{*forcedTiles}
                    : variant.candidates(shape);
    std::string firstUnfit;
    for (const ::attn::TileConfig &tiles : candidates) {
      std::string unfit = forcedTiles ? variant.checkTiles(tiles) : "";
      if (unfit.empty())
        unfit = variant.checkTilesFor(tiles, shape);
      if (unfit.empty())
        unfit = variant.checkFits(tiles, shape, arch.maxSharedPerBlock);
      // Forced tiles are the only candidate: say why they cannot serve
      // (with a forced variant, or on the first variant that could).
      if (!unfit.empty() && forcedTiles)
        return op.emitOpError()
               << "backward tiles " << tiles.blockM << "x" << tiles.blockN
               << "x" << tiles.numWarps << "x" << tiles.stages
               << " do not serve backward variant " << variant.name << ": "
               << unfit;
      LLVM_DEBUG(llvm::dbgs()
                 << "  backward " << variant.name << " m=" << tiles.blockM
                 << " n=" << tiles.blockN << " warps=" << tiles.numWarps
                 << " stages=" << tiles.stages << ": "
                 << (unfit.empty() ? "fits" : unfit) << "\n");
      if (!unfit.empty()) {
        if (firstUnfit.empty())
          firstUnfit = unfit;
        continue;
      }
      op.setConfigAttr(BackwardConfigAttr::get(
          op.getContext(), StringRef(variant.name.data(), variant.name.size()),
          tiles.blockM, tiles.blockN, tiles.numWarps, tiles.stages));
      // A faster variant that could not serve says why (as the forward's
      // model does).
      for (const std::string &reason : skipped)
        op.emitRemark() << reason << "; using backward variant "
                        << variant.name;
      return success();
    }
    // No candidate fits: the first (the preferred tiles) says why.
    why = "backward variant " + std::string(variant.name) +
          " has no tiles for head dims " + std::to_string(shape.headDimQK) +
          "/" + std::to_string(shape.headDimV) + " on " + arch.name.str() +
          " (" + firstUnfit + ")";
    if (forced)
      break;
    skipped.push_back(why);
  }
  if (!tileMismatches.empty())
    return op.emitOpError() << "backward tiles " << forcedTiles->blockM << "x"
                            << forcedTiles->blockN << "x"
                            << forcedTiles->numWarps << "x"
                            << forcedTiles->stages
                            << " do not serve any backward variant on "
                            << arch.name << " ("
                            << llvm::join(tileMismatches, "; ") << ")";
  if (!why.empty())
    return op.emitOpError() << why;
  return op.emitOpError() << "no backward tile configuration fits "
                          << arch.name << " for head dims " << shape.headDimQK
                          << "/" << shape.headDimV;
}

BackwardConfigAttr mlir::attn::selectBackwardConfigWithout(FlashBwdOp op,
                                                          const ArchInfo &arch,
                                                          StringRef excluded) {
  BackwardConfigAttr own = op.getConfigAttr();
  op.removeConfigAttr();
  BackwardConfigAttr chosen;
  {
    // Its reasons and remarks are the caller's to give.
    ScopedDiagnosticHandler quiet(op.getContext(),
                                  [](Diagnostic &) { return success(); });
    if (succeeded(configureBackward(op, arch, "", std::nullopt, excluded)))
      chosen = op.getConfigAttr();
  }
  op.setConfigAttr(own);
  return chosen;
}
