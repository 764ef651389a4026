//===- FlashOpTextTests.cpp - The one writer of attn.flash text -----------===//
//
// writeFlashOp spells each option as the Python package always has (the
// texts below are what it wrote), and every text it writes parses and
// verifies; a description it cannot write is an error naming the field.
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/API/FlashOpText.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace attn;

namespace {

constexpr int64_t kDyn = kDynamicExtent;

FlashOperandText bf16(std::vector<int64_t> shape) {
  return {"", ElementType::BF16, std::move(shape)};
}

FlashOperandText typed(ElementType element, std::vector<int64_t> shape) {
  return {"", element, std::move(shape)};
}

/// A dense GQA 8/2 attention at head dim 64, batch and keys dynamic.
FlashOpText dense() {
  FlashOpText op;
  op.q = bf16({kDyn, 8, 128, 64});
  op.k = bf16({kDyn, 2, kDyn, 64});
  op.v = bf16({kDyn, 2, kDyn, 64});
  op.scale = 0.125;
  return op;
}

/// A ragged batch: packed q, k, v and the offsets.
FlashOpText packed() {
  FlashOpText op;
  op.q = bf16({kDyn, 8, 64});
  op.k = bf16({kDyn, 2, 64});
  op.v = bf16({kDyn, 2, 64});
  op.cuSeqlensQ = op.cuSeqlensK = typed(ElementType::I32, {kDyn});
  op.scale = 0.125;
  return op;
}

std::string write(const FlashOpText &op) {
  Result<std::string> text = writeFlashOp(op);
  EXPECT_TRUE(text.isOk()) << text.status().toString();
  return text ? *text : "";
}

/// The message of writeFlashOp's error for `op` ("" if it wrote the op).
std::string errorOf(const FlashOpText &op) {
  Result<std::string> text = writeFlashOp(op);
  if (text)
    return "";
  EXPECT_EQ(text.status().code(), StatusCode::InvalidArgument);
  return text.status().message();
}

/// The first diagnostic of parsing and verifying `op` written as a
/// function ("" where it is valid IR).
std::string diagnosticOf(FlashOpText op) {
  if (op.function.empty())
    op.function = "f";
  Result<std::string> text = writeFlashOp(op);
  if (!text)
    return "not written: " + text.status().message();
  mlir::MLIRContext context;
  registerAttnDialects(context);
  std::string first;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (first.empty())
      first = d.str();
    return mlir::success();
  });
  auto module = mlir::parseSourceString<mlir::ModuleOp>(*text, &context);
  if (!module && first.empty())
    first = "did not parse";
  return first.empty() ? "" : first + "\n" + *text;
}

const char *kSoftcap = "%c = arith.constant 30.0 : f32\n"
                       "%d = arith.divf %score, %c : f32\n"
                       "%t = math.tanh %d : f32\n"
                       "%y = arith.mulf %t, %c : f32\n"
                       "attn.yield %y : f32";

TEST(FlashOpText, WritesTheOpAlone) {
  EXPECT_EQ(write(dense()),
            "%o = attn.flash %q, %k, %v {scale = 0.125 : f32} : "
            "tensor<?x8x128x64xbf16>, tensor<?x2x?x64xbf16>, "
            "tensor<?x2x?x64xbf16> -> tensor<?x8x128x64xbf16>");
}

TEST(FlashOpText, WritesAFunctionOfTheOperands) {
  FlashOpText op = dense();
  op.function = "sdpa";
  op.returnLse = true;
  EXPECT_EQ(write(op),
            "func.func @sdpa(%q: tensor<?x8x128x64xbf16>, %k: "
            "tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> "
            "(tensor<?x8x128x64xbf16>, tensor<?x8x128xf32>) {\n"
            "  %o, %lse = attn.flash %q, %k, %v {scale = 0.125 : f32} : "
            "tensor<?x8x128x64xbf16>, tensor<?x2x?x64xbf16>, "
            "tensor<?x2x?x64xbf16> -> tensor<?x8x128x64xbf16>, "
            "tensor<?x8x128xf32>\n"
            "  return %o, %lse : tensor<?x8x128x64xbf16>, tensor<?x8x128xf32>\n"
            "}\n");
  EXPECT_EQ(diagnosticOf(op), "");
}

TEST(FlashOpText, MasksInTheOrderTheAttributePrintsThem) {
  FlashOpText op = dense();
  op.bias = typed(ElementType::F16, {1, 8, 1, kDyn});
  op.keep = typed(ElementType::Bool, {kDyn, 1, 128, kDyn});
  op.lengths = typed(ElementType::I32, {kDyn});
  op.bottomRight = true;
  op.window = {{127, 0}};
  op.causal = true;
  std::string text = write(op);
  EXPECT_NE(text.find("%v lengths(%len : tensor<?xi32>) keep(%keep : "
                      "tensor<?x1x128x?xi1>) bias(%bias : "
                      "tensor<1x8x1x?xf16>) {"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("mask = #attn.mask<causal, window = [127, 0], "
                      "bottom_right, key_padding, keep, bias>}"),
            std::string::npos)
      << text;
  EXPECT_EQ(diagnosticOf(op), "");
}

TEST(FlashOpText, EachMaskItemAlone) {
  struct Case {
    const char *item;
    void (*set)(FlashOpText &);
  } cases[] = {
      {"causal", [](FlashOpText &op) { op.causal = true; }},
      {"window = [-1, 31]",
       [](FlashOpText &op) {
         op.window = {{-1, 31}};
       }},
      {"key_padding",
       [](FlashOpText &op) { op.lengths = typed(ElementType::I32, {kDyn}); }},
      {"keep",
       [](FlashOpText &op) {
         op.keep = typed(ElementType::Bool, {1, 1, 128, kDyn});
       }},
      {"bias",
       [](FlashOpText &op) {
         op.bias = typed(ElementType::F32, {kDyn, 8, 128, kDyn});
       }},
  };
  for (const Case &c : cases) {
    FlashOpText op = dense();
    c.set(op);
    std::string text = write(op);
    EXPECT_NE(text.find(std::string(", mask = #attn.mask<") + c.item + ">}"),
              std::string::npos)
        << text;
    EXPECT_EQ(diagnosticOf(op), "") << c.item;
  }
  // bottom_right as asked: alone the verifier refuses it, by name.
  FlashOpText alone = dense();
  alone.bottomRight = true;
  EXPECT_NE(write(alone).find("mask = #attn.mask<bottom_right>"),
            std::string::npos);
  EXPECT_NE(diagnosticOf(alone).find("bottom_right aligns causal or window"),
            std::string::npos);
}

TEST(FlashOpText, ScoreModRegionWithCaptures) {
  FlashOpText op = dense();
  op.function = "sdpa";
  op.captures = {typed(ElementType::F32, {8}), typed(ElementType::I32, {4, 5})};
  op.scoreMod = "%s = tensor.extract %capture0[%h] : tensor<8xf32>\n"
                "%y = arith.addf %score, %s : f32\n"
                "attn.yield %y : f32";
  std::string text = write(op);
  EXPECT_NE(text.find("%v: tensor<?x2x?x64xbf16>, %captured0: tensor<8xf32>, "
                      "%captured1: tensor<4x5xi32>) ->"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(" captures(%captured0, %captured1 : tensor<8xf32>, "
                "tensor<4x5xi32>) {scale = 0.125 : f32} score_mod {\n"
                "  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, "
                "%kv_idx: index, %capture0: tensor<8xf32>, %capture1: "
                "tensor<4x5xi32>):\n"
                "    %s = tensor.extract %capture0[%h] : tensor<8xf32>\n"
                "    %y = arith.addf %score, %s : f32\n"
                "    attn.yield %y : f32\n"
                "  } : tensor<?x8x128x64xbf16>,"),
      std::string::npos)
      << text;
  EXPECT_EQ(diagnosticOf(op), "");

  FlashOpText softcap = dense();
  softcap.scoreMod = kSoftcap;
  EXPECT_NE(write(softcap).find("    %t = math.tanh %d : f32\n"),
            std::string::npos);
  EXPECT_EQ(diagnosticOf(softcap), "");

  // A rank-0 capture is tensor<f32>.
  FlashOpText scalar = dense();
  scalar.captures = {typed(ElementType::F32, {})};
  scalar.scoreMod = "%s = tensor.extract %capture0[] : tensor<f32>\n"
                    "%y = arith.addf %score, %s : f32\nattn.yield %y : f32";
  EXPECT_NE(write(scalar).find("captures(%captured0 : tensor<f32>)"),
            std::string::npos);
  EXPECT_EQ(diagnosticOf(scalar), "");
}

TEST(FlashOpText, RaggedBatch) {
  FlashOpText op = packed();
  op.function = "varlen";
  op.causal = true;
  op.bottomRight = true;
  op.returnLse = true;
  op.sinks = typed(ElementType::F32, {8});
  EXPECT_EQ(write(op),
            "func.func @varlen(%q: tensor<?x8x64xbf16>, %k: "
            "tensor<?x2x64xbf16>, %v: tensor<?x2x64xbf16>, %cq: "
            "tensor<?xi32>, %ck: tensor<?xi32>, %sinks: tensor<8xf32>) -> "
            "(tensor<?x8x64xbf16>, tensor<8x?xf32>) {\n"
            "  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : "
            "tensor<?xi32>) cu_seqlens_k(%ck : tensor<?xi32>) sinks(%sinks : "
            "tensor<8xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, "
            "bottom_right>} : tensor<?x8x64xbf16>, tensor<?x2x64xbf16>, "
            "tensor<?x2x64xbf16> -> tensor<?x8x64xbf16>, tensor<8x?xf32>\n"
            "  return %o, %lse : tensor<?x8x64xbf16>, tensor<8x?xf32>\n"
            "}\n");
  EXPECT_EQ(diagnosticOf(op), "");
}

TEST(FlashOpText, PagedCache) {
  FlashOpText op = dense();
  op.function = "kvcache";
  op.q = bf16({kDyn, 8, 1, 64});
  op.lengths = typed(ElementType::I32, {kDyn});
  op.sinks = typed(ElementType::F32, {8});
  op.blockTable = typed(ElementType::I32, {kDyn, kDyn});
  op.window = {{255, 0}};
  op.bottomRight = true;
  op.captures = {typed(ElementType::F32, {8})};
  op.scoreMod = "%s = tensor.extract %capture0[%h] : tensor<8xf32>\n"
                "%y = arith.addf %score, %s : f32\nattn.yield %y : f32";
  std::string text = write(op);
  // Arguments: the lengths, the captures, the sinks, the table.
  EXPECT_NE(text.find("%v: tensor<?x2x?x64xbf16>, %len: tensor<?xi32>, "
                      "%captured0: tensor<8xf32>, %sinks: tensor<8xf32>, "
                      "%table: tensor<?x?xi32>) -> (tensor<?x8x1x64xbf16>)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%v lengths(%len : tensor<?xi32>) captures(%captured0 "
                      ": tensor<8xf32>) sinks(%sinks : tensor<8xf32>) "
                      "block_table(%table : tensor<?x?xi32>) {scale = 0.125 : "
                      "f32, mask = #attn.mask<window = [255, 0], bottom_right, "
                      "key_padding>} score_mod {"),
            std::string::npos)
      << text;
  EXPECT_EQ(diagnosticOf(op), "");
}

TEST(FlashOpText, TransposedKeysAndNames) {
  FlashOpText op = dense();
  op.q = bf16({2, 8, 128, 64});
  op.k = bf16({2, 2, 64, 256});
  op.v = bf16({2, 2, 256, 64});
  op.transposeK = true;
  op.causal = true;
  op.q.name = "query";
  op.k.name = "key_t";
  op.v.name = "0";
  op.outputName = "t7";
  EXPECT_EQ(write(op), "%t7 = attn.flash %query, %key_t, %0 {scale = 0.125 : "
                       "f32, mask = #attn.mask<causal>, transpose_k} : "
                       "tensor<2x8x128x64xbf16>, tensor<2x2x64x256xbf16>, "
                       "tensor<2x2x256x64xbf16> -> tensor<2x8x128x64xbf16>");
  EXPECT_EQ(diagnosticOf(op), "");
}

TEST(FlashOpText, ScaleIsTheShortestDecimalOfTheDouble) {
  EXPECT_EQ(writeShortestDouble(0.125), "0.125");
  EXPECT_EQ(writeShortestDouble(1.0 / std::sqrt(128.0)), "0.08838834764831843");
  EXPECT_EQ(writeShortestDouble(2.0), "2.0");
  EXPECT_EQ(writeShortestDouble(-0.0), "-0.0");
  EXPECT_EQ(writeShortestDouble(0.0001), "0.0001");
  EXPECT_EQ(writeShortestDouble(1e15), "1000000000000000.0");
  // Exponent forms where Python's repr has them, with the '.' MLIR needs.
  EXPECT_EQ(writeShortestDouble(1e-5), "1.0e-05");
  EXPECT_EQ(writeShortestDouble(1.5e-7), "1.5e-07");
  EXPECT_EQ(writeShortestDouble(1e16), "1.0e+16");
  EXPECT_EQ(writeShortestDouble(1e300), "1.0e+300");
  // A float widened keeps its value: the f32 attribute reads back as it.
  EXPECT_EQ(writeShortestDouble(double(0.1f)), "0.10000000149011612");

  FlashOpText op = dense();
  op.scale = 1e-5;
  EXPECT_EQ(diagnosticOf(op), "");
}

TEST(FlashOpText, ErrorsNameTheField) {
  auto expectError = [](const FlashOpText &op, const std::string &what) {
    std::string message = errorOf(op);
    EXPECT_NE(message.find(what), std::string::npos)
        << "expected '" << what << "' in '" << message << "'";
  };
  FlashOpText op = dense();
  op.k.name = "k v";
  expectError(op, "k is named 'k v', which is not an SSA name");
  op = dense();
  op.outputName = "";
  expectError(op, "the output is named '', which is not an SSA name");
  op = dense();
  op.function = "2f";
  expectError(op, "the function is named '2f', which is not a symbol name");
  op = dense();
  op.v.shape[2] = -7;
  expectError(op, "v has extent -7; extents are >= 0, or kDynamicExtent");
  op = dense();
  op.q.shape = {8, 128, 64};
  expectError(op, "q has rank 3; expected 4 ([batch, heads, seq, head_dim])");
  op = packed();
  op.v.shape = {1, 2, 3, 4};
  expectError(op, "v has rank 4; expected 3 ([tokens, heads, head_dim], with "
                  "cu_seqlens)");
  op = dense();
  op.k.shape = {64};
  expectError(op, "k has rank 1; expected 3 or 4");
  op = packed();
  op.cuSeqlensK.reset();
  expectError(op, "cu_seqlens_q and cu_seqlens_k go together");
  op = dense();
  op.captures = {typed(ElementType::F32, {8})};
  expectError(op, "captures are read by a score_mod, and there is none");
  op = dense();
  op.captures = {typed(ElementType::F32, {8})};
  op.captures[0].name = "%c";
  op.scoreMod = kSoftcap;
  expectError(op, "capture 0 is named '%c'");
  op = dense();
  op.scale = std::numeric_limits<double>::infinity();
  expectError(op, "scale must be finite, got inf");
  op = dense();
  op.scale = std::nan("");
  expectError(op, "scale must be finite, got nan");
  op = dense();
  op.returnLse = true;
  op.lseName = "o";
  expectError(op, "the output and the logsumexp are both named 'o'");
  op = dense();
  op.function = "f";
  op.lengths = typed(ElementType::I32, {kDyn});
  op.lengths->name = "k";
  expectError(op, "lengths and k are both named 'k'");
  op = dense();
  op.function = "f";
  op.q.name = "o";
  expectError(op, "q and the output are both named 'o'");
  // In a statement for the caller's function, operands may be one value.
  op = dense();
  op.v.name = "k";
  EXPECT_EQ(errorOf(op), "");
}

} // namespace
