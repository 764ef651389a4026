//===- SelectConfig.cpp - Choose kernel variant and tiles -----------------===//
//
// A small analytic cost model: enumerate the tile configurations the kernel
// variants support on the target (sm80 everywhere, sm90 on sm_90a for head
// dims in whole 64-column blocks), drop those that exceed shared memory or
// registers, and pick the one with the best modeled throughput (see
// modelThroughput).
//
//===----------------------------------------------------------------------===//

#include "BackwardConfig.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Target/Cuda/KernelLayout.h"
#include "attn/Transforms/Passes.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

#define DEBUG_TYPE "attn-select-config"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNSELECTCONFIGPASS
#include "attn/Transforms/Passes.h.inc"

std::optional<ArchInfo> lookupArch(StringRef name) {
  // Reference parts: A100, A10/RTX 3090 class, L4/RTX 4090 class, H100/H200.
  static const ArchInfo archs[] = {
      {"sm_80", 80, 108, 166912, 167936},
      {"sm_86", 86, 84, 101376, 102400},
      {"sm_89", 89, 128, 101376, 102400},
      {"sm_90a", 90, 132, 232448, 233472},
  };
  for (const ArchInfo &arch : archs)
    if (arch.name == name)
      return arch;
  return std::nullopt;
}

namespace {

constexpr int64_t kRegistersPerSM = 65536;
constexpr int64_t kMaxRegistersPerThread = 255;
constexpr int64_t kMaxWarpsPerSM = 48;

struct Candidate {
  StringRef variant;
  int64_t blockM, blockN, numWarps, stages;
};

struct Shape {
  int64_t batchHeads; ///< B * Hq, or 0 when dynamic
  int64_t queries;    ///< Sq, or 0 when dynamic
  int64_t headDimQK, headDimV;
  bool transposeK;
  bool elementwise; ///< bias, keep or score_mod: per-element work on all tiles
};

TileShape tileShape(const Candidate &c, const Shape &s) {
  return TileShape{c.variant,     c.blockM,    c.blockN,    c.numWarps,
                   c.stages,      s.headDimQK, s.headDimV, s.transposeK};
}

/// Blocks of `c` that fit on one SM, or 0 if one block does not fit.
int64_t blocksPerSM(const Candidate &c, const Shape &s, const ArchInfo &arch) {
  int64_t smem = sharedMemoryBytes(tileShape(c, s));
  int64_t regs = estimatedRegisters(tileShape(c, s), s.elementwise);
  if (smem > arch.maxSharedPerBlock || regs > kMaxRegistersPerThread)
    return 0;
  int64_t bySmem = arch.maxSharedPerSM / smem;
  int64_t byRegs = kRegistersPerSM / (regs * 32 * c.numWarps);
  int64_t byWarps = kMaxWarpsPerSM / c.numWarps;
  return std::min({bySmem, byRegs, byWarps});
}

/// Modeled throughput of `c`, higher is better (0: does not fit). Blocks are
/// spread evenly over the SMs; the busiest SM's rows, over its rate, is the
/// time. The rate grows with the tile's arithmetic intensity (K/V reloaded
/// once per blockM rows, softmax bookkeeping once per blockN keys) and with
/// the warps resident to hide latency. Variants are not compared: sm90 is
/// taken wherever it applies (it beat sm80 on every shape measured).
double modelThroughput(const Candidate &c, const Shape &s,
                       const ArchInfo &arch) {
  int64_t perSM = blocksPerSM(c, s, arch);
  if (perSM == 0)
    return 0.0;
  // Unknown sizes: assume enough rows to keep every slot busy.
  int64_t rows = s.queries > 0 ? s.queries : 4096;
  int64_t batchHeads =
      s.batchHeads > 0 ? s.batchHeads : 4 * arch.numSMs * perSM;
  int64_t blocks = batchHeads * llvm::divideCeil(rows, c.blockM);
  int64_t blocksOnBusiestSM = llvm::divideCeil(blocks, int64_t(arch.numSMs));
  int64_t resident = std::min(perSM, blocksOnBusiestSM);
  double intensity, hiding;
  if (c.variant == "sm90") {
    // The products of a warpgroup run while it computes its softmax (the
    // main loop is pipelined by one tile), but one warpgroup alone cannot
    // cover its own softmax: the tensor cores need other warpgroups on the
    // SM, more of them the less product work a tile holds per softmax
    // (4 at head dims 64, 2 at 128). Larger tiles cut the per-tile costs.
    // Fitted to the H200 sweep in bench/NOTES.md (step 11), where the model
    // picks within 1% of the best of four tiles on the 12 shapes measured:
    // 128x128 with two warpgroups at head dim 128, 64x128 with one at 64.
    intensity = 1.0 / (1.0 + 16.0 / double(c.blockM) + 32.0 / double(c.blockN));
    double warpgroups = double(resident * (c.numWarps / 4));
    double needed = 512.0 / double(s.headDimQK + s.headDimV);
    hiding = std::pow(std::min(1.0, warpgroups / needed), 0.3);
  } else {
    intensity = 1.0 / (1.0 + 32.0 / double(c.blockM) + 16.0 / double(c.blockN));
    // A warp with two m16 tiles reuses each K/V fragment it loads from
    // shared memory twice; on the H200 (bench/NOTES.md) 128x32 with 4 warps
    // beat 128x128 with 8 warps by 20% at head dim 128.
    int64_t mTiles = c.blockM / (16 * c.numWarps);
    intensity *= 1.0 + 0.4 * double(std::min<int64_t>(mTiles, 2) - 1);
    hiding = std::min(1.0, double(resident * c.numWarps) / 8.0) *
             (c.stages >= 2 ? 1.0 : 0.85);
  }
  double time = double(blocksOnBusiestSM * c.blockM) / (intensity * hiding);
  return double(batchHeads * rows) / time;
}

struct AttnSelectConfigPass
    : impl::AttnSelectConfigPassBase<AttnSelectConfigPass> {
  using Base::Base;

  bool hasOverride() {
    return blockM || blockN || numWarps || stages || !variant.empty();
  }

  LogicalResult configure(FlashOp op, const ArchInfo &arch) {
    if (op.getConfig() && !hasOverride())
      return success();
    RankedTensorType q = op.getQ().getType(), v = op.getV().getType();
    Shape shape;
    shape.headDimQK = q.getDimSize(3);
    shape.headDimV = v.getDimSize(3);
    shape.transposeK = op.getTransposeK();
    MaskAttr mask = op.getMaskOrEmpty();
    shape.elementwise = mask.getBias() || mask.getKeep() || op.hasScoreMod();
    for (auto [name, dim] : {std::pair<StringRef, int64_t>{"q/k", shape.headDimQK},
                             {"v", shape.headDimV}}) {
      if (dim % 8 != 0)
        return op.emitOpError()
               << "head dim " << dim << " of " << name
               << " is not a multiple of 8; no kernel supports it";
      if (dim > kMaxHeadDim)
        return op.emitOpError() << "head dim " << dim << " of " << name
                                << " exceeds the largest supported, "
                                << kMaxHeadDim;
    }
    // Each known on its own: a kernel for any batch of one-token decode
    // still wants the tiles of a few rows.
    shape.batchHeads = q.isDynamicDim(0) ? 0 : q.getDimSize(0) * q.getDimSize(1);
    shape.queries = q.isDynamicDim(2) ? 0 : q.getDimSize(2);

    std::optional<Candidate> best;
    double bestScore = 0.0;
    auto consider = [&](Candidate c) {
      double score = modelThroughput(c, shape, arch);
      LLVM_DEBUG(llvm::dbgs() << "  " << c.variant << " m=" << c.blockM
                              << " n=" << c.blockN << " warps=" << c.numWarps
                              << " stages=" << c.stages << " score=" << score
                              << "\n");
      if (score > bestScore) {
        bestScore = score;
        best = c;
      }
    };
    bool sm90 = arch.computeCapability >= 90 &&
                sm90Supports(shape.headDimQK, shape.headDimV, shape.transposeK);
    if (variant == "sm90" && !sm90)
      return op.emitOpError()
             << "variant sm90 needs sm_90a, head dims that are multiples of "
                "64 and an untransposed k; got "
             << arch.name << ", head dims " << shape.headDimQK << "/"
             << shape.headDimV << (shape.transposeK ? ", transpose_k" : "");
    if (sm90 && variant != "sm80")
      for (int64_t warps : {4, 8})
        for (int64_t n : {64, 128})
          consider(Candidate{"sm90", 16 * warps, n, warps, 2});
    if (!best && variant != "sm90")
      for (int64_t m : {64, 128})
        for (int64_t warps : {4, 8})
          for (int64_t n : {32, 64, 128})
            for (int64_t st : {1, 2})
              if (m % (16 * warps) == 0)
                consider(Candidate{"sm80", m, n, warps, st});
    if (!best && !hasOverride())
      return op.emitOpError() << "no tile configuration fits " << arch.name
                              << " for head dims " << shape.headDimQK << "/"
                              << shape.headDimV;
    Candidate chosen = best.value_or(
        Candidate{variant.empty() ? StringRef("sm80") : StringRef(variant), 64,
                  64, 4, 2});
    if (op.getConfig() && hasOverride()) {
      ConfigAttr given = op.getConfigAttr();
      chosen = Candidate{variant.empty() ? given.getVariant() : StringRef(variant),
                         given.getBlockM(), given.getBlockN(),
                         given.getNumWarps(), given.getStages()};
    }
    if (blockM)
      chosen.blockM = blockM;
    if (blockN)
      chosen.blockN = blockN;
    if (numWarps)
      chosen.numWarps = numWarps;
    if (stages)
      chosen.stages = stages;

    ConfigAttr config = ConfigAttr::getChecked(
        [&] {
          InFlightDiagnostic diag = op.emitOpError() << "invalid tile override";
          if (chosen.variant == "sm90" && variant.empty())
            diag << " for the sm90 variant (variant=sm80 selects mma.sync "
                    "tiles)";
          diag << ": ";
          return diag;
        },
        op.getContext(), chosen.variant, chosen.blockM, chosen.blockN,
        chosen.numWarps, chosen.stages);
    if (!config)
      return failure();
    int64_t smem = sharedMemoryBytes(tileShape(chosen, shape));
    if (smem > arch.maxSharedPerBlock)
      return op.emitOpError()
             << "config needs " << smem << " bytes of shared memory; "
             << arch.name << " allows " << arch.maxSharedPerBlock;
    int64_t regs = estimatedRegisters(tileShape(chosen, shape),
                                      shape.elementwise);
    if (regs > kMaxRegistersPerThread)
      return op.emitOpError() << "config needs about " << regs
                              << " registers per thread; the limit is "
                              << kMaxRegistersPerThread;
    op.setConfigAttr(config);
    return success();
  }

  void runOnOperation() override {
    std::optional<ArchInfo> info = lookupArch(arch);
    if (!info) {
      getOperation()->emitError()
          << "unknown arch '" << arch
          << "'; expected sm_80, sm_86, sm_89 or sm_90a";
      return signalPassFailure();
    }
    if (!variant.empty() && !llvm::is_contained(getKnownVariants(), variant)) {
      getOperation()->emitError()
          << "unknown variant '" << variant << "'; expected sm80 or sm90";
      return signalPassFailure();
    }
    WalkResult result = getOperation()->walk([&](FlashOp op) {
      return failed(configure(op, *info)) ? WalkResult::interrupt()
                                          : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The backward has its own tiles (the overrides are the forward's).
    result = getOperation()->walk([&](FlashBwdOp op) {
      return failed(configureBackward(op, *info)) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::attn
