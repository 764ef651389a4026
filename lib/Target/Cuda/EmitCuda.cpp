//===- EmitCuda.cpp - attn.flash to CUDA C++ ------------------------------===//
//
// The emitted source binds typed constants into the templates of
// kernels-templates/ and prints the score_mod region as a device function.
//
//===----------------------------------------------------------------------===//

#include "attn/Target/Cuda/EmitCuda.h"
#include "attn/Support/ElementTypes.h"
#include "attn/Variants/KernelVariants.h"
#include "EmitHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detail;
using ::attn::kMaxHeadDim;
using ::attn::packedRowGroup;

std::string mlir::attn::detail::floatLiteral(APFloat value) {
  float f = value.convertToFloat();
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "__int_as_float(0x" << llvm::format_hex_no_prefix(bits, 8) << "u)";
  if (std::isfinite(f))
    os << " /* " << llvm::format("%g", f) << " */";
  return text;
}

const char *mlir::attn::detail::boolText(bool value) {
  return value ? "true" : "false";
}

LogicalResult mlir::attn::detail::setMask(Operation *op, MaskAttr mask,
                                          Value bias,
                                          ::attn::KernelSpec &spec) {
  spec.causal = mask.getCausal();
  spec.bottomRight = mask.getBottomRight();
  spec.bottomRightTensor = mask.getAlignsToTensor();
  spec.window = mask.hasWindow();
  spec.windowLeft = mask.getWindowLeft();
  spec.windowRight = mask.getWindowRight();
  spec.keyPadding = mask.getKeyPadding();
  spec.keep = mask.getKeep();
  spec.bias = mask.getBias();
  if (!spec.bias)
    return success();
  FailureOr<::attn::ElementType> biasElement = elementTypeOf(
      op, cast<RankedTensorType>(bias.getType()).getElementType());
  if (failed(biasElement))
    return failure();
  spec.biasElement = *biasElement;
  return success();
}

void mlir::attn::detail::printSharedConfig(const ::attn::KernelSpec &spec,
                                           raw_ostream &os) {
  os << "  using Element = " << templateElement(spec.element) << ";\n"
     << "  using BiasElement = " << templateElement(spec.biasElement) << ";\n"
     << "  static constexpr int kHeadDimQK = " << spec.headDimQK << ";\n"
     << "  static constexpr int kHeadDimV = " << spec.headDimV << ";\n"
     << "  static constexpr int kBlockM = " << spec.blockM << ";\n"
     << "  static constexpr int kBlockN = " << spec.blockN << ";\n"
     << "  static constexpr int kNumWarps = " << spec.numWarps << ";\n"
     << "  static constexpr int kStages = " << spec.stages << ";\n"
     << "  static constexpr bool kCausal = " << boolText(spec.causal) << ";\n"
     << "  static constexpr bool kBottomRight = " << boolText(spec.bottomRight)
     << ";\n"
     << "  static constexpr bool kBottomRightTensor = "
     << boolText(spec.bottomRightTensor) << ";\n"
     << "  static constexpr bool kWindow = " << boolText(spec.window) << ";\n"
     << "  static constexpr bool kKeyPadding = " << boolText(spec.keyPadding)
     << ";\n"
     << "  static constexpr bool kKeep = " << boolText(spec.keep) << ";\n"
     << "  static constexpr bool kBias = " << boolText(spec.bias) << ";\n"
     << "  static constexpr bool kScoreMod = " << boolText(spec.scoreMod)
     << ";\n";
}

std::string
mlir::attn::detail::positionalMaskName(const ::attn::KernelSpec &spec) {
  std::string alignment =
      spec.bottomRight ? (spec.bottomRightTensor ? "brt" : "br") : "";
  std::string name;
  if (spec.causal)
    name += "_causal" + alignment;
  if (spec.window)
    name += "_window" + (spec.causal ? std::string() : alignment);
  return name;
}

namespace {

/// The readable part of the kernel name: attn_fwd_bf16_hd128_causal_...
std::string kernelName(const ::attn::KernelSpec &spec) {
  std::string name = "attn_fwd_";
  name += ::attn::elementTypeName(spec.element);
  name += "_hd" + std::to_string(spec.headDimQK);
  if (spec.headDimV != spec.headDimQK)
    name += "x" + std::to_string(spec.headDimV);
  if (spec.transposeK)
    name += "_kt";
  name += positionalMaskName(spec);
  if (spec.keyPadding)
    name += "_padded";
  if (spec.keep)
    name += "_keep";
  if (spec.bias)
    name += "_bias";
  if (spec.scoreMod)
    name += "_mod";
  if (spec.writesLse)
    name += "_lse";
  if (spec.sinks)
    name += "_sinks";
  if (spec.varlen)
    name += "_varlen";
  if (spec.paged)
    name += "_paged";
  name += "_" + spec.variant + "_" + std::to_string(spec.blockM) + "x" +
          std::to_string(spec.blockN) + "w" + std::to_string(spec.numWarps) +
          "s" + std::to_string(spec.stages);
  return name;
}

} // namespace

FailureOr<::attn::ElementType>
mlir::attn::detail::elementTypeOf(Operation *op, Type type) {
  std::optional<::attn::ElementType> element = toElementType(type);
  if (element && (*element == ::attn::ElementType::F16 ||
                  *element == ::attn::ElementType::BF16 ||
                  *element == ::attn::ElementType::F32))
    return *element;
  return op->emitOpError() << "has element type " << type
                           << ", which the kernels do not support";
}

const char *mlir::attn::detail::templateElement(::attn::ElementType type) {
  switch (type) {
  case ::attn::ElementType::F16:
    return "attn::F16";
  case ::attn::ElementType::BF16:
    return "attn::BF16";
  case ::attn::ElementType::F32:
    return "float";
  case ::attn::ElementType::I32:
    return "int";
  case ::attn::ElementType::I64:
    return "long long";
  case ::attn::ElementType::Bool:
    return "bool";
  }
  return "";
}

FailureOr<::attn::KernelSpec> mlir::attn::emitFlashKernel(FlashOp op,
                                                           ConfigAttr config) {
  if (!config)
    config = op.getConfigAttr();
  if (!config)
    return op.emitOpError()
           << "has no #attn.config; run --attn-select-config first";
  MaskAttr mask = op.getMaskOrEmpty();
  RankedTensorType q = op.getQ().getType();

  ::attn::KernelSpec spec;
  setTiles(spec, config);
  FailureOr<::attn::ElementType> element = elementTypeOf(op, q.getElementType());
  if (failed(element))
    return failure();
  spec.element = *element;
  spec.headDimQK = op.getHeadDimQK();
  spec.headDimV = op.getHeadDimV();
  spec.headsQ = op.getHeadsQ();
  spec.headsKV = op.getHeadsKV();
  spec.varlen = op.isVarlen();
  spec.sinks = static_cast<bool>(op.getSinks());
  spec.paged = op.isPaged();
  if (spec.headDimQK % 8 || spec.headDimV % 8 ||
      spec.headDimQK > kMaxHeadDim || spec.headDimV > kMaxHeadDim)
    return op.emitOpError() << "head dims " << spec.headDimQK << "/"
                            << spec.headDimV
                            << " are not supported (multiples of 8 up to "
                            << kMaxHeadDim << ")";
  spec.transposeK = op.getTransposeK();
  if (failed(setMask(op, mask, op.getBias(), spec)))
    return failure();
  spec.scoreMod = op.hasScoreMod();
  spec.scoreModCaptures = static_cast<int>(op.getCaptures().size());
  spec.writesLse = static_cast<bool>(op.getLse());
  spec.scale = op.getScale().convertToFloat();
  // A ragged batch: its sequences are the offsets' (static), its sequence
  // extents the packed tokens.
  RankedTensorType batchType =
      spec.varlen ? op.getCuSeqlensQ().getType() : q;
  spec.batch = batchType.isDynamicDim(0)
                   ? -1
                   : batchType.getDimSize(0) - (spec.varlen ? 1 : 0);
  int64_t seqDim = op.getSeqDim();
  spec.seqQ = q.isDynamicDim(seqDim) ? -1 : q.getDimSize(seqDim);
  int64_t keys = op.getKeysPerSequence();
  spec.seqKV = ShapedType::isDynamic(keys) ? -1 : keys;
  const ::attn::KernelVariant *variant =
      ::attn::findKernelVariant(spec.variant);
  if (!variant)
    return op.emitOpError() << "has unknown kernel variant " << spec.variant;
  // Decode with GQA: a few static tokens x the query heads of a K/V head
  // share each block's rows.
  spec.packGroup = static_cast<int>(packedRowGroup(
      *variant, spec.headsQ, spec.headsKV, spec.seqQ, spec.varlen));
  spec.sharedBytes = variant->sharedBytes(
      {spec.blockM, spec.blockN, spec.numWarps, spec.stages},
      op.getOperandShape());
  spec.name = kernelName(spec);

  std::string scoreModFunction;
  llvm::raw_string_ostream scoreModStream(scoreModFunction);
  if (failed(printScoreModFunction(
          spec.scoreMod ? &op.getScoreMod() : nullptr, scoreModStream)))
    return failure();

  llvm::raw_string_ostream os(spec.source);
  os << "// Generated by attn from " << op.getLoc() << "\n"
     << "// " << spec.name << ": " << spec.threads << " threads, "
     << spec.sharedBytes << " bytes of shared memory\n"
     << "#include \"" << variant->header << "\"\n\n"
     << "namespace {\n"
     << "struct Config {\n";
  printSharedConfig(spec, os);
  os << "  static constexpr bool kTransposeK = " << boolText(spec.transposeK)
     << ";\n"
     << "  static constexpr bool kWriteLse = " << boolText(spec.writesLse)
     << ";\n"
     << "  static constexpr bool kVarlen = " << boolText(spec.varlen) << ";\n"
     << "  static constexpr bool kSinks = " << boolText(spec.sinks) << ";\n"
     << "  static constexpr bool kPaged = " << boolText(spec.paged) << ";\n"
     << "  static constexpr int kPackGroup = " << spec.packGroup << ";\n"
     << scoreModFunction
     << "};\n"
     << "using Kernel = " << variant->kernelTemplate << "<Config>;\n"
     << "static_assert(Kernel::kSharedBytes == " << spec.sharedBytes
     << ", \"shared-memory model (KernelVariants.cpp) and template "
        "disagree\");\n"
     << "} // namespace\n\n";
  if (variant->persistent) {
    // One block per SM (setmaxnreg needs the cap); the tensor maps live in
    // the parameter space, where TMA reads them.
    os << "extern \"C\" __global__ void __launch_bounds__(" << spec.threads
       << ", 1) " << spec.name
       << "(const __grid_constant__ attn::FlashParams params, "
          "const __grid_constant__ attn::TmaMaps maps) {\n"
       << "  extern __shared__ __align__(1024) char smem[];\n"
       << "  Kernel::run(params, maps, smem);\n"
       << "}\n\n";
  } else {
    os << "extern \"C\" __global__ void __launch_bounds__(" << spec.threads
       << ") " << spec.name << "(const attn::FlashParams params) {\n"
       << "  extern __shared__ __align__(16) char smem[];\n"
       << "  Kernel::run(params, smem);\n"
       << "}\n\n";
  }
  os << "// Merges the partial results of a split-KV launch.\n"
     << "extern \"C\" __global__ void __launch_bounds__(attn::kCombineThreads) "
     << spec.name << "_combine(const attn::FlashParams params) {\n"
     << "  attn::FlashCombine<Config>::run(params);\n"
     << "}\n";
  return spec;
}
