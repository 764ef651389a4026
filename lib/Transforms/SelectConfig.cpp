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
#include "attn/Variants/Archs.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Mutex.h"

#include <cmath>

#define DEBUG_TYPE "attn-select-config"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNSELECTCONFIGPASS
#include "attn/Transforms/Passes.h.inc"

std::optional<ArchInfo> lookupArch(StringRef name) {
  for (const ::attn::TunedArch &arch : ::attn::tunedArchs())
    if (arch.name == std::string_view(name))
      return ArchInfo{StringRef(arch.name.data(), arch.name.size()),
                      arch.computeCapability, arch.numSMs,
                      arch.maxSharedPerBlock, arch.maxSharedPerSM};
  // Newer GPUs (sm_100, sm_120, ...) run the sm80 variant.
  unsigned capability = 0;
  StringRef digits = name;
  if (!digits.consume_front("sm_") ||
      digits.take_while(llvm::isDigit).getAsInteger(10, capability) ||
      capability < 80)
    return std::nullopt;
  static llvm::sys::SmartMutex<true> mutex;
  static llvm::StringSet<> names; // owns the names the results refer to
  llvm::sys::SmartScopedLock<true> lock(mutex);
  StringRef owned = names.insert(name).first->getKey();
  ::attn::TunedArch limits = ::attn::newerArchLimits(
      std::string_view(owned.data(), owned.size()), int(capability));
  ArchInfo derived{owned, limits.computeCapability, limits.numSMs,
                   limits.maxSharedPerBlock, limits.maxSharedPerSM};
  derived.tuned = false;
  return derived;
}

std::string unsupportedArchMessage(StringRef name) {
  return ("attn cannot target '" + name + "': its kernels need sm_80 or newer (" +
          ::attn::tunedArchParts() +
          "; newer GPUs such as sm_100 or sm_120 run the sm80 kernels)")
      .str();
}

namespace {

constexpr int64_t kRegistersPerSM = 65536;
constexpr int64_t kMaxWarpsPerSM = 48;

using ::attn::KernelVariant;
using ::attn::OperandShape;
using ::attn::TileConfig;

struct Shape {
  int64_t batchHeads; ///< B * Hq, or 0 when dynamic
  int64_t queries;    ///< Sq, or 0 when dynamic
  int64_t keys;       ///< Skv, or 0 when dynamic
  bool causalOrWindow = false;
  OperandShape operands;
};

using ::attn::alignedKeysUpTo;
using ::attn::kMaxHeadDim;
using ::attn::kMaxPackedTokens;
using ::attn::packedRowGroup;
/// The key length the tiles for long keys are chosen for.
constexpr int64_t kLongKeys = 32768;

/// Blocks of `c` that fit on one SM, or 0 if one block does not fit. A
/// persistent variant runs one block per SM by design.
int64_t blocksPerSM(const KernelVariant &v, const TileConfig &c, const Shape &s,
                    const ArchInfo &arch) {
  int64_t smem = v.sharedBytes(c, s.operands);
  int64_t regs = v.registers(c, s.operands);
  if (smem > arch.maxSharedPerBlock || regs > v.registerLimit(c))
    return 0;
  if (v.persistent)
    return 1;
  int64_t bySmem = arch.maxSharedPerSM / smem;
  int64_t byRegs = kRegistersPerSM / (regs * v.threads(c));
  int64_t byWarps = kMaxWarpsPerSM / c.numWarps;
  return std::min({bySmem, byRegs, byWarps});
}

/// Modeled throughput of `c`, higher is better (0: does not fit). Blocks are
/// spread evenly over the SMs; the busiest SM's rows, over its rate, is the
/// time. The rate grows with the tile's arithmetic intensity (K/V reloaded
/// once per blockM rows, softmax bookkeeping once per blockN keys) and with
/// the warps resident to hide latency. Scores are compared within a variant
/// only: the first variant in the table's order with a fitting tile wins.
double modelThroughput(const KernelVariant &v, const TileConfig &c,
                       const Shape &s, const ArchInfo &arch) {
  int64_t perSM = blocksPerSM(v, c, s, arch);
  if (perSM == 0)
    return 0.0;
  // Unknown sizes: assume enough rows to keep every slot busy.
  int64_t rows = s.queries > 0 ? s.queries : 4096;
  int64_t batchHeads =
      s.batchHeads > 0 ? s.batchHeads : 4 * arch.numSMs * perSM;
  int64_t blocks = batchHeads * llvm::divideCeil(rows, c.blockM);
  int64_t blocksOnBusiestSM = llvm::divideCeil(blocks, int64_t(arch.numSMs));
  int64_t resident = std::min(perSM, blocksOnBusiestSM);
  const OperandShape &ops = s.operands;
  double intensity, hiding;
  if (v.persistent) {
    // Warp-specialized: TMA loads and the consumers' ping-pong hide the
    // softmax behind the other warpgroup's products, so one block per SM
    // suffices; what is left is the per-tile bookkeeping, smaller for
    // longer key tiles (the register limit bounds them).
    intensity = 1.0 / (1.0 + 16.0 / double(c.blockM) + 24.0 / double(c.blockN));
    hiding = 1.0;
    // Lengths are mostly multiples of 128 (a 176-key tile leaves a partial
    // last tile) and 128-row query blocks meet a causal diagonal in one
    // 128-key tile, not two. On the H200 (bench/NOTES.md, step 17) 128-key
    // tiles beat the longest that fit by 10-21% at S = 512-1024 and causal;
    // on the grid (step 19) they lose 4% at S = 4096 without a mask and 6%
    // at 8192 causal. Below 128 keys the per-tile bookkeeping decides (head
    // dim 256 keeps 80 over 64).
    const bool alignedKeys =
        s.keys == 0 || s.keys <= alignedKeysUpTo(s.causalOrWindow);
    if (alignedKeys && c.blockN > 128 && c.blockN % 128 != 0)
      intensity *= 0.9;
    // Head dims up to 64 give a tile half the product work per exponential
    // that 128 does: two consumers' softmaxes do not hide behind each
    // other's products, three do better (as in the sm90 branch, about
    // 512 / (dqk + dv) warpgroups are needed). On the H200 (bench/NOTES.md
    // step 30) three consumers at 192x128 beat 128-row tiles by 13% at hd64
    // S = 4096 and by 4% causal, but lost 12% at S = 1024 causal, where
    // 192-row blocks meet the diagonal in more masked tiles: they serve long
    // keys only.
    if (ops.headDimQK + ops.headDimV <= 128) {
      double needed = 512.0 / double(ops.headDimQK + ops.headDimV);
      hiding = std::pow(std::min(1.0, double(c.numWarps / 4 - 1) / needed), 0.3);
    }
    if (alignedKeys && c.blockM > 128)
      intensity *= 0.85;
  } else if (v.name == "sm90") {
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
    double needed = 512.0 / double(ops.headDimQK + ops.headDimV);
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

/// Decode (a few query tokens, their rows packed with the query heads of
/// a K/V head): each block streams its keys once and the tensor cores are
/// mostly idle, so what limits is how well each SM keeps K/V tiles in
/// flight. Per key and K/V head, the time is the larger of
///  - memory: the tile's bytes over the share of HBM bandwidth the SM gets,
///    full with two or more tiles in flight per SM (blocks x (stages - 1):
///    on the H200 two blocks of two stages read 94% of 4.8 TB/s at head
///    dim 128, one block of two stages 53% at 256), half with one;
///  - compute: blockM rows of products per key, the ridge at about 100
///    rows for wgmma from cp.async tiles (the sm90 kernel's 470-490
///    TFLOP/s against 36 GB/s per SM), 64 for mma.sync and 135 for the
///    warp-specialized kernel (650 TFLOP/s at head dim 128);
/// once per m-block (further m-blocks read K/V again). The persistent
/// kernel's producer keeps every stage in flight, but it runs one block per
/// SM and pays more per launch and per tile (barriers, the scheduler warp):
/// it must win by kPersistentDecodeMargin, so it serves the packed rows
/// that leave the cp.async kernels compute-bound (GQA 64/8 with 16 tokens:
/// 128 rows). Higher is better; 0: does not fit.
constexpr double kPersistentDecodeMargin = 1.05;

double modelDecodeThroughput(const KernelVariant &v, const TileConfig &c,
                             const Shape &s, const ArchInfo &arch) {
  int64_t perSM = blocksPerSM(v, c, s, arch);
  if (perSM == 0)
    return 0.0;
  double inFlight =
      v.persistent ? double(c.stages)
                   : double(perSM) * (c.stages >= 2 ? double(c.stages - 1) : 0.5);
  double memory = 1.0 / std::min(1.0, inFlight / 2.0);
  double ridgeRows = v.persistent ? 135.0 : v.name == "sm80" ? 64.0 : 100.0;
  double compute = double(c.blockM) / ridgeRows;
  double mBlocks = double(llvm::divideCeil(std::max<int64_t>(s.queries, 1),
                                           c.blockM));
  double rate = 1.0 / (mBlocks * std::max(memory, compute));
  return v.persistent ? rate / kPersistentDecodeMargin : rate;
}

/// True if the target can run the variant.
bool archRuns(const KernelVariant &v, const ArchInfo &arch) {
  if (arch.computeCapability < v.minCapability)
    return false;
  // Arch-specific features (wgmma, setmaxnreg) exist on sm_90a only (not on
  // sm_90, nor on later GPUs).
  return !v.archSpecific || arch.name == "sm_90a";
}

/// What the cost model knows of `op`'s sizes.
Shape shapeOf(FlashOp op) {
  RankedTensorType q = op.getQ().getType();
  Shape shape;
  shape.operands = op.getOperandShape();
  // Each known on its own: a kernel for any batch of one-token decode
  // still wants the tiles of a few rows.
  // Ragged batches: the packed tokens say nothing of how many sequences
  // share them, so both count as unknown, as do a sequence's keys.
  shape.batchHeads = op.isVarlen() || q.isDynamicDim(0)
                         ? 0
                         : q.getDimSize(0) * q.getDimSize(1);
  shape.queries = op.isVarlen() || q.isDynamicDim(2) ? 0 : q.getDimSize(2);
  int64_t keys = op.getKeysPerSequence();
  shape.keys = op.isVarlen() || ShapedType::isDynamic(keys) ? 0 : keys;
  shape.causalOrWindow =
      op.getMaskOrEmpty().getCausal() || op.getMaskOrEmpty().hasWindow();
  // The model's choice saturates long before; clamped so that its
  // products of 32-bit extents fit 64 bits.
  shape.batchHeads = std::min<int64_t>(shape.batchHeads, 1 << 24);
  shape.queries = std::min<int64_t>(shape.queries, 1 << 24);
  shape.keys = std::min<int64_t>(shape.keys, 1 << 24);
  return shape;
}

/// The best-scoring tiles of `candidate` for `op` into `best`, and their
/// score (0: none fits).
double bestTiles(const KernelVariant &candidate, FlashOp op, const Shape &shape,
                 const ArchInfo &arch, TileConfig &best) {
  // Decode with GQA packs the query heads of a K/V head into the rows
  // of its tokens (the emitter's kPackGroup): fewer, taller row sets.
  Shape rows = shape;
  if (int64_t group = packedRowGroup(candidate, op.getHeadsQ(), op.getHeadsKV(),
                                     shape.queries, op.isVarlen());
      group > 1) {
    rows.queries = shape.queries * group;
    rows.batchHeads = shape.batchHeads / group;
  }
  double bestScore = 0.0;
  for (const TileConfig &c : candidate.candidates(shape.operands)) {
    double score = modelThroughput(candidate, c, rows, arch);
    LLVM_DEBUG(llvm::dbgs()
               << "  " << candidate.name << " m=" << c.blockM
               << " n=" << c.blockN << " warps=" << c.numWarps
               << " stages=" << c.stages << " score=" << score << "\n");
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return bestScore;
}

/// The key tiles narrower than `config`'s of its variant (its block_m,
/// warps and stages) that fit `arch`, the most keys first: a launch plan's
/// spill_block_n, what the runtime compiles where ptxas spills `config`'s
/// kernel (the register models count a score_mod as a fixed amount of
/// element-wise work, not its captured tensors' loads nor the size of its
/// region: test/Target/Cuda/ptxas-score-mod.test). Null if none.
DenseI64ArrayAttr narrowerKeyTiles(FlashOp op, ConfigAttr config,
                                   const ArchInfo &arch) {
  const KernelVariant *variant =
      ::attn::findKernelVariant(config.getVariant().str());
  if (!variant)
    return nullptr;
  OperandShape shape = op.getOperandShape();
  SmallVector<int64_t> blockNs;
  for (const TileConfig &c : variant->candidates(shape))
    if (c.blockM == config.getBlockM() && c.numWarps == config.getNumWarps() &&
        c.stages == config.getStages() && c.blockN < config.getBlockN() &&
        variant->checkTiles(c).empty() &&
        variant->sharedBytes(c, shape) <= arch.maxSharedPerBlock &&
        variant->registers(c, shape) <= variant->registerLimit(c))
      blockNs.push_back(c.blockN);
  llvm::sort(blockNs, std::greater<int64_t>());
  blockNs.erase(std::unique(blockNs.begin(), blockNs.end()), blockNs.end());
  return blockNs.empty() ? nullptr
                         : DenseI64ArrayAttr::get(op.getContext(), blockNs);
}

/// The cost model's tiles for `op` on `arch` among the variants that load
/// with cp.async (not persistent), which read strides and addresses that
/// TMA rejects: a launch plan's cp_async. Null if none serves the operands.
ConfigAttr selectCpAsyncConfig(FlashOp op, const ArchInfo &arch) {
  Shape shape = shapeOf(op);
  for (const KernelVariant &candidate : ::attn::kernelVariants()) {
    if (candidate.persistent || !archRuns(candidate, arch) ||
        !candidate.checkOperands(shape.operands).empty())
      continue;
    TileConfig best;
    if (bestTiles(candidate, op, shape, arch, best) > 0.0)
      return ConfigAttr::get(
          op.getContext(),
          StringRef(candidate.name.data(), candidate.name.size()), best.blockM,
          best.blockN, best.numWarps, best.stages);
  }
  return nullptr;
}

/// Sets (or, where it would be empty, removes) the launch plan of `op`,
/// whose config is set: the narrower tiles of that config where `narrow`,
/// `longKeys` and theirs, and for a persistent config the cp.async
/// kernel and its narrower tiles (the model's choice: always narrowed).
void setLaunchPlan(FlashOp op, const ArchInfo &arch, bool narrow,
                   ConfigAttr longKeys) {
  ConfigAttr config = op.getConfigAttr();
  const KernelVariant *variant =
      ::attn::findKernelVariant(config.getVariant().str());
  ConfigAttr cpAsync = variant && variant->persistent
                           ? selectCpAsyncConfig(op, arch)
                           : ConfigAttr();
  auto plan = LaunchPlanAttr::get(
      op.getContext(), narrow ? narrowerKeyTiles(op, config, arch) : nullptr,
      longKeys,
      longKeys && narrow ? narrowerKeyTiles(op, longKeys, arch) : nullptr,
      cpAsync, cpAsync ? narrowerKeyTiles(op, cpAsync, arch) : nullptr);
  if (plan == LaunchPlanAttr::get(op.getContext(), nullptr, nullptr, nullptr,
                                  nullptr, nullptr))
    op.removePlanAttr();
  else
    op.setPlanAttr(plan);
}

struct AttnSelectConfigPass
    : impl::AttnSelectConfigPassBase<AttnSelectConfigPass> {
  using Base::Base;

  bool hasOverride() {
    return blockM || blockN || numWarps || stages || !variant.empty();
  }

  LogicalResult configure(FlashOp op, const ArchInfo &arch) {
    // A written config is kept, once it fits the arch (the verifier cannot
    // know the GPU); its tiles are not narrowed where they spill, and a
    // written plan stays as it is.
    const bool written = static_cast<bool>(op.getConfig());
    if (written && !hasOverride()) {
      if (failed(verifyConfigFits(op, arch)))
        return failure();
      if (!op.getPlan())
        setLaunchPlan(op, arch, /*narrow=*/false, /*longKeys=*/nullptr);
      return success();
    }
    Shape shape = shapeOf(op);
    for (auto [name, dim] :
         {std::pair<StringRef, int64_t>{"q/k", shape.operands.headDimQK},
          {"v", shape.operands.headDimV}}) {
      if (dim % 8 != 0)
        return op.emitOpError()
               << "head dim " << dim << " of " << name
               << " is not a multiple of 8; no kernel supports it";
      if (dim > kMaxHeadDim)
        return op.emitOpError() << "head dim " << dim << " of " << name
                                << " exceeds the largest supported, "
                                << kMaxHeadDim;
    }

    // Variants in the table's order of preference: the first that the
    // target runs, that supports the operands and has a fitting tile wins
    // (or the one the `variant` option names). Why the first runnable one
    // did not serve the operands becomes a remark: the user should know when
    // the fastest kernel is not used.
    std::string fastestUnsupported, forcedWhy;
    bool sawRunnable = false;
    const KernelVariant *bestVariant = nullptr;
    TileConfig best;
    double bestScore = 0.0, bestTieBreak = 0.0;
    for (const KernelVariant &candidate : ::attn::kernelVariants()) {
      const bool forced = !variant.empty();
      if (forced && candidate.name != variant.getValue())
        continue;
      std::string why;
      if (!archRuns(candidate, arch)) {
        why = "it needs " + std::string(candidate.archSpecific
                                            ? "sm_90a"
                                            : "sm_80 or newer") +
              ", the target is " + arch.name.str();
      } else {
        why = candidate.checkOperands(shape.operands);
        if (!why.empty())
          why = "it needs " + why;
        if (!sawRunnable && !why.empty())
          fastestUnsupported = std::string(candidate.name) + ": " + why;
        sawRunnable = true;
      }
      // Decode with GQA packs the query heads of a K/V head into the rows
      // of its tokens (the emitter's kPackGroup): fewer, taller row sets.
      const int64_t group =
          packedRowGroup(candidate, op.getHeadsQ(), op.getHeadsKV(),
                         shape.queries, op.isVarlen());
      // The persistent kernel's tiles hold 128 rows or more: a few static
      // queries keep the one-block-per-tile kernels unless the variant is
      // forced or the query heads of decode fill its rows (the memory model
      // below decides).
      if (why.empty() && !forced && candidate.persistent &&
          shape.queries > 0 && shape.queries <= 64 && group == 1)
        continue;
      if (!why.empty()) {
        forcedWhy = why;
        continue;
      }
      Shape rows = shape;
      if (group > 1) {
        rows.queries = shape.queries * group;
        rows.batchHeads = shape.batchHeads / group;
      }
      // A few static query tokens are decode: the memory model decides,
      // across the variants (a later one must be better by more than 1%),
      // and the prefill model breaks its ties within a variant. Its
      // constants come from the H200; elsewhere the prefill model stays
      // (on sm_80 the decode model's pick for a small static batch, 64x32
      // with four warps at head dim 128, is one ptxas spills 8 bytes of).
      const bool decode = shape.queries > 0 &&
                          shape.queries <= kMaxPackedTokens &&
                          (!candidate.persistent || group > 1) &&
                          arch.name == "sm_90a";
      if (!decode)
        bestScore = bestTieBreak = 0.0;
      const KernelVariant *earlier = bestVariant;
      for (const TileConfig &c : candidate.candidates(shape.operands)) {
        double throughput = modelThroughput(candidate, c, rows, arch);
        double score =
            decode ? modelDecodeThroughput(candidate, c, rows, arch) : throughput;
        LLVM_DEBUG(llvm::dbgs() << "  " << candidate.name << " m=" << c.blockM
                                << " n=" << c.blockN << " warps=" << c.numWarps
                                << " stages=" << c.stages << " score=" << score
                                << " prefill=" << throughput << "\n");
        if (score <= 0.0)
          continue;
        bool better;
        if (!decode)
          better = score > bestScore;
        else if (earlier)
          better = score > bestScore * 1.01;
        else
          better = score > bestScore * 1.01 ||
                   (score >= bestScore * 0.99 && throughput > bestTieBreak);
        if (better) {
          bestScore = std::max(score, bestScore);
          bestTieBreak = throughput;
          best = c;
          bestVariant = &candidate;
          earlier = nullptr;
        }
      }
      if (bestVariant && !decode)
        break;
    }
    if (!variant.empty() && !forcedWhy.empty())
      return op.emitOpError() << "variant " << variant
                              << " cannot run this attention: " << forcedWhy;
    if (!bestVariant && !hasOverride())
      return op.emitOpError() << "no tile configuration fits " << arch.name
                              << " for head dims " << shape.operands.headDimQK
                              << "/" << shape.operands.headDimV;
    // A forced variant none of whose tiles fits, and no tiles given: say
    // so, not what the default tiles lack.
    if (!bestVariant && !variant.empty() && !blockM && !blockN && !numWarps &&
        !stages && !op.getConfig())
      return op.emitOpError()
             << "variant " << variant << " has no tile configuration that fits "
             << arch.name << " for head dims " << shape.operands.headDimQK
             << "/" << shape.operands.headDimV
             << " with these operands (registers or shared memory); give its "
                "tiles (block-m, block-n, num-warps, stages) or another "
                "variant";
    // The chosen variant (or the override's) and its tiles, then each tile
    // option given on the command line.
    StringRef chosenVariant = bestVariant ? StringRef(bestVariant->name.data(),
                                                      bestVariant->name.size())
                                          : StringRef("sm80");
    if (!variant.empty())
      chosenVariant = variant;
    TileConfig chosen = bestVariant ? best : TileConfig{64, 64, 4, 2};
    if (op.getConfig() && hasOverride()) {
      ConfigAttr given = op.getConfigAttr();
      if (variant.empty())
        chosenVariant = given.getVariant();
      chosen = {given.getBlockM(), given.getBlockN(), given.getNumWarps(),
                given.getStages()};
    }
    if (blockM)
      chosen.blockM = blockM;
    if (blockN)
      chosen.blockN = blockN;
    if (numWarps)
      chosen.numWarps = numWarps;
    if (stages)
      chosen.stages = stages;
    if (bestVariant && !fastestUnsupported.empty() && variant.empty())
      op.emitRemark() << "kernel variant " << chosenVariant << ", not "
                      << fastestUnsupported;

    ConfigAttr config = ConfigAttr::getChecked(
        [&] {
          InFlightDiagnostic diag = op.emitOpError() << "invalid tile override";
          if (chosenVariant != "sm80" && variant.empty())
            diag << " for the " << chosenVariant
                 << " variant (variant=sm80 selects mma.sync tiles)";
          diag << ": ";
          return diag;
        },
        op.getContext(), chosenVariant, chosen.blockM, chosen.blockN,
        chosen.numWarps, chosen.stages);
    if (!config)
      return failure();
    const KernelVariant &chosenKernel =
        *::attn::findKernelVariant(config.getVariant());
    std::string why = chosenKernel.checkOperands(shape.operands);
    if (!why.empty())
      return op.emitOpError() << "variant " << chosenVariant
                              << " cannot run this attention: it needs " << why;
    int64_t smem = chosenKernel.sharedBytes(chosen, shape.operands);
    if (smem > arch.maxSharedPerBlock)
      return op.emitOpError()
             << "config needs " << smem << " bytes of shared memory; "
             << arch.name << " allows " << arch.maxSharedPerBlock;
    int64_t regs = chosenKernel.registers(chosen, shape.operands);
    if (regs > chosenKernel.registerLimit(chosen))
      return op.emitOpError() << "config needs about " << regs
                              << " registers per thread; the limit is "
                              << chosenKernel.registerLimit(chosen);
    op.setConfigAttr(config);

    // A dynamic key length: the tiles above suit up to alignedKeysUpTo
    // keys; where the model prefers others for long keys, they are planned
    // too, both kernels are compiled, and the runtime picks by length.
    ConfigAttr longKeys;
    if (bestVariant && bestVariant->persistent && !hasOverride() &&
        shape.keys == 0) {
      Shape longShape = shape;
      longShape.keys = kLongKeys;
      double longScore = 0.0;
      TileConfig longBest;
      for (const TileConfig &c : bestVariant->candidates(shape.operands)) {
        double score = modelThroughput(*bestVariant, c, longShape, arch);
        if (score > longScore) {
          longScore = score;
          longBest = c;
        }
      }
      if (longScore > 0.0 &&
          (longBest.blockM != chosen.blockM || longBest.blockN != chosen.blockN ||
           longBest.numWarps != chosen.numWarps ||
           longBest.stages != chosen.stages))
        longKeys = ConfigAttr::get(op.getContext(), chosenVariant,
                                   longBest.blockM, longBest.blockN,
                                   longBest.numWarps, longBest.stages);
    }
    // Tiles given (written on the op or as options) are kept, spills and
    // all; the model's are narrowed where ptxas spills them.
    const bool tilesGiven = written || blockM || blockN || numWarps || stages;
    setLaunchPlan(op, arch, /*narrow=*/!tilesGiven, longKeys);
    return success();
  }

  void runOnOperation() override {
    std::optional<ArchInfo> info = lookupArch(arch);
    if (!info) {
      getOperation()->emitError() << unsupportedArchMessage(arch);
      return signalPassFailure();
    }
    if (!variant.empty() && !::attn::findKernelVariant(variant)) {
      getOperation()->emitError()
          << "unknown variant '" << variant
          << "'; expected one of " << ::attn::knownVariantNames();
      return signalPassFailure();
    }
    if (!backwardVariant.empty() &&
        !::attn::findBackwardKernelVariant(backwardVariant)) {
      getOperation()->emitError()
          << "unknown backward variant '" << backwardVariant
          << "'; expected one of " << ::attn::knownBackwardVariantNames();
      return signalPassFailure();
    }
    WalkResult result = getOperation()->walk([&](FlashOp op) {
      if (!info->tuned)
        op.emitRemark() << "no tuned cost model for " << arch
                        << ": using the sm80 variant (mma.sync) with "
                           "conservative shared-memory limits";
      return failed(configure(op, *info)) ? WalkResult::interrupt()
                                          : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The backward has its own overrides (the tile options are the
    // forward's).
    std::optional<::attn::TileConfig> forcedBackwardTiles;
    if (!backwardTiles.empty()) {
      std::string error;
      forcedBackwardTiles = parseBackwardTiles(backwardTiles, error);
      if (!forcedBackwardTiles) {
        getOperation()->emitError() << error;
        return signalPassFailure();
      }
    }
    result = getOperation()->walk([&](FlashBwdOp op) {
      const bool modelChooses =
          !op.getConfig() && backwardVariant.empty() && !forcedBackwardTiles;
      if (!modelChooses && op.getConfig() && backwardVariant.empty() &&
          !forcedBackwardTiles && failed(verifyConfigFits(op, *info)))
        return WalkResult::interrupt();
      if (failed(configureBackward(op, *info, backwardVariant,
                                   forcedBackwardTiles)))
        return WalkResult::interrupt();
      // The model's choice gets the config of another variant for where
      // ptxas spills it; given configs are kept.
      if (modelChooses)
        if (BackwardConfigAttr spill = selectBackwardConfigWithout(
                op, *info, op.getConfigAttr().getVariant()))
          op.setPlanAttr(BackwardPlanAttr::get(op.getContext(), spill));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

} // namespace mlir::attn
