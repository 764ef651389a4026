//===- EmitFlashBackward.cpp - attn.flash_bwd to CUDA C++ -----------------===//
//
// The backward's translation unit binds typed constants into the header of
// its backward variant (the table in attn/Variants/KernelVariants.h), prints
// the score_mod and its derivative (the score_mod_grad region) as device
// functions with the forward's printer, and defines the four entries the
// runtime launches (five with the sinks' gradient).
//
//===----------------------------------------------------------------------===//

#include "EmitHelpers.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Target/Cuda/EmitCuda.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detail;

namespace {

/// The readable part of the name: attn_bwd_bf16_hd128_causal_...
std::string backwardKernelName(const ::attn::KernelSpec &spec) {
  std::string name = "attn_bwd_";
  name += ::attn::elementTypeName(spec.element);
  name += "_hd" + std::to_string(spec.headDimQK);
  if (spec.headDimV != spec.headDimQK)
    name += "x" + std::to_string(spec.headDimV);
  if (spec.headsQ != spec.headsKV)
    name += "_gqa" + std::to_string(spec.headsQ / spec.headsKV);
  name += positionalMaskName(spec);
  if (spec.keyPadding)
    name += "_padded";
  if (spec.keep)
    name += "_keep";
  if (spec.bias)
    name += spec.biasGrad ? "_dbias" : "_bias";
  if (spec.scoreMod)
    name += "_mod";
  if (spec.sinks)
    name += "_dsinks";
  if (spec.varlen)
    name += "_varlen";
  name += "_" + spec.variant + "_" + std::to_string(spec.blockM) + "x" +
          std::to_string(spec.blockN) + "w" + std::to_string(spec.numWarps) +
          "s" + std::to_string(spec.stages);
  return name;
}

} // namespace

FailureOr<::attn::KernelSpec>
mlir::attn::emitFlashBackwardKernel(FlashBwdOp op,
                                    BackwardConfigAttr config) {
  if (!config)
    config = op.getConfigAttr();
  if (!config)
    return op.emitOpError()
           << "has no #attn.backward_config; run --attn-select-config first";
  MaskAttr mask = op.getMaskOrEmpty();
  RankedTensorType q = op.getQ().getType(), k = op.getK().getType(),
                   v = op.getV().getType();

  ::attn::KernelSpec spec;
  spec.kind = ::attn::KernelKind::FlashBackward;
  setTiles(spec, config);
  FailureOr<::attn::ElementType> element = elementTypeOf(op, q.getElementType());
  if (failed(element))
    return failure();
  spec.element = *element;
  spec.varlen = op.isVarlen();
  // Packed [T, H, D] or dense [B, H, S, D].
  const int64_t seqDim = spec.varlen ? 0 : 2, headDimDim = spec.varlen ? 2 : 3;
  spec.headDimQK = q.getDimSize(headDimDim);
  spec.headDimV = v.getDimSize(headDimDim);
  spec.headsQ = q.getDimSize(1);
  spec.headsKV = k.getDimSize(1);
  spec.transposeK = op.getTransposeK();
  // The op's verifier checked the operands and tiles against the variant's
  // rules (KernelVariants.h); its model sizes the kernels.
  const ::attn::BackwardKernelVariant *variant =
      ::attn::findBackwardKernelVariant(spec.variant);
  if (!variant)
    return op.emitOpError() << "has unknown backward variant " << spec.variant;
  ::attn::TileConfig tiles{spec.blockM, spec.blockN, spec.numWarps,
                           spec.stages};
  ::attn::OperandShape shape = op.getOperandShape();
  if (failed(setMask(op, mask, op.getBias(), spec)))
    return failure();
  spec.biasGrad = op.hasBiasGrad();
  // A backward's sinks are there for their gradient (the _sinks entry).
  spec.sinks = op.hasSinksGrad();
  spec.scoreMod = op.hasScoreMod();
  spec.scoreModCaptures = static_cast<int>(op.getCaptures().size());
  spec.writesLse = false;
  spec.scale = op.getScale().convertToFloat();
  // A ragged batch's sequences are its offsets' (batch + 1 of them).
  RankedTensorType batchType = spec.varlen ? op.getCuSeqlensQ().getType() : q;
  spec.batch = batchType.isDynamicDim(0)
                   ? -1
                   : batchType.getDimSize(0) - (spec.varlen ? 1 : 0);
  const int64_t kSeqDim = spec.transposeK ? 3 : seqDim;
  spec.seqQ = q.isDynamicDim(seqDim) ? -1 : q.getDimSize(seqDim);
  spec.seqKV = k.isDynamicDim(kSeqDim) ? -1 : k.getDimSize(kSeqDim);
  spec.sharedBytes = variant->sharedBytes(tiles, shape);
  spec.backwardDqSharedBytes = variant->dqSharedBytes(tiles, shape);
  spec.backwardDqThreads = variant->dqThreads(tiles);
  spec.name = backwardKernelName(spec);

  std::string functions;
  llvm::raw_string_ostream functionStream(functions);
  Region *scoreMod = spec.scoreMod ? &op.getScoreMod() : nullptr;
  Region *scoreModGrad = spec.scoreMod ? &op.getScoreModGrad() : nullptr;
  if (failed(printScoreModFunction(scoreMod, functionStream)))
    return failure();
  functionStream << "  // d scoreMod / d score (the score_mod_grad region).\n";
  if (failed(printScoreModFunction(scoreModGrad, functionStream,
                                   "scoreModGrad", "1.f")))
    return failure();

  llvm::raw_string_ostream os(spec.source);
  os << "// Generated by attn from " << op.getLoc() << "\n"
     << "// " << spec.name << ": " << spec.threads << " threads, "
     << spec.sharedBytes << " bytes of shared memory (dQ kernel: "
     << spec.backwardDqThreads << ", " << spec.backwardDqSharedBytes << ")\n"
     << "#include \"" << variant->header << "\"\n\n"
     << "namespace {\n"
     << "struct Config {\n";
  printSharedConfig(spec, os);
  os << "  static constexpr bool kBiasGrad = " << boolText(spec.biasGrad)
     << ";\n"
     << "  static constexpr bool kVarlen = " << boolText(spec.varlen)
     << ";\n"
     // The mask policy's serving layouts, which the backward does not take.
     << "  static constexpr bool kPaged = false;\n"
     << "  static constexpr int kPackGroup = 1;\n"
     << functions
     << "};\n"
     << "using KV = " << variant->kvTemplate << "<Config>;\n"
     << "using Q = " << variant->dqTemplate << "<Config>;\n"
     << "static_assert(KV::kSharedBytes == " << spec.sharedBytes
     << " && Q::kSharedBytes == " << spec.backwardDqSharedBytes
     << " && Q::kThreads == " << spec.backwardDqThreads
     << ", \"resource model (KernelVariants.cpp) and template disagree\");\n"
     << "} // namespace\n\n"
     << "// dK, dV (and dbias; dQ with atomics) of a block of keys. One block\n"
     << "// per SM is enough: without it ptxas may cap registers for occupancy\n"
     << "// and spill.\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << spec.threads
     << ", 1) " << spec.name << "(const attn::FlashBwdParams params"
     // A TMA variant's tensor maps live in the parameter space.
     << (variant->tma ? ",\n    const __grid_constant__ attn::BackwardTmaMaps maps"
                      : "")
     << ") {\n"
     << "  extern __shared__ __align__(16) char smem[];\n"
     << (variant->tma ? "  KV::run(params, maps, smem);\n"
                      : "  KV::run(params, smem);\n")
     << "}\n\n"
     << "// Deterministic mode: dQ of a block of queries.\n"
     << "extern \"C\" __global__ void __launch_bounds__("
     << spec.backwardDqThreads << ", 1) " << spec.name
     << "_dq(const attn::FlashBwdParams params) {\n"
     << "  extern __shared__ __align__(16) char smem[];\n"
     << "  Q::run(params, smem);\n"
     << "}\n\n"
     << "// D = rowsum(dO * O); zeroes the dbias sum (the runtime zeroes dQ's).\n"
     << "extern \"C\" __global__ void __launch_bounds__(attn::kBackwardRowThreads) "
     << spec.name << "_pre(const attn::FlashBwdParams params) {\n"
     << "  attn::FlashBackwardPre<Config, KV::DqAccum>::run(params);\n"
     << "}\n\n"
     << "// The f32 sums to their element types.\n"
     << "extern \"C\" __global__ void __launch_bounds__(attn::kBackwardRowThreads) "
     << spec.name << "_convert(const attn::FlashBwdParams params) {\n"
     << "  attn::FlashBackwardConvert<Config, KV::DqAccum>::run(params);\n"
     << "}\n";
  if (spec.sinks)
    os << "\n// dsinks from D and the logsumexp: a block a query head.\n"
       << "extern \"C\" __global__ void "
          "__launch_bounds__(attn::kBackwardRowThreads) "
       << spec.name << "_sinks(const attn::FlashBwdParams params) {\n"
       << "  attn::FlashBackwardSinks::run(params);\n"
       << "}\n";
  return spec;
}
