//===- CAPIFlashOpTextTests.cpp - attn_write_flash_op ---------------------===//
//
// Links libattn_c.so as the Python package does: the C description of an
// attn.flash comes back as the text attn_compile takes, and a bad argument
// is ATTN_INVALID_ARGUMENT with a message, an empty text and no crash.
//
//===----------------------------------------------------------------------===//

#include "attn-c/attn.h"

#include <gtest/gtest.h>

#include <string>

namespace {

const int64_t kQ[] = {ATTN_DYNAMIC_EXTENT, 4, 100, 64};
const int64_t kKV[] = {ATTN_DYNAMIC_EXTENT, 2, ATTN_DYNAMIC_EXTENT, 64};
const int64_t kLengths[] = {ATTN_DYNAMIC_EXTENT};
const int64_t kHeads[] = {4};

attn_text_tensor tensor(const char *element, const int64_t *shape, int32_t rank,
                        const char *name = nullptr) {
  attn_text_tensor t = {};
  t.name = name;
  t.element = element;
  t.shape = shape;
  t.rank = rank;
  return t;
}

/// A causal GQA attention with key padding, a softcap score_mod reading a
/// per-head capture, and the logsumexp, as a function.
attn_flash_op_text description(const attn_text_tensor *captures) {
  attn_flash_op_text op = {};
  op.function = "sdpa";
  op.q = tensor("bf16", kQ, 4);
  op.k = op.v = tensor("bf16", kKV, 4);
  op.lengths = tensor("i32", kLengths, 1);
  op.captures = captures;
  op.num_captures = 1;
  op.scale = 0.125;
  op.causal = 1;
  op.score_mod = "%c = tensor.extract %capture0[%h] : tensor<4xf32>\n"
                 "%y = arith.addf %score, %c : f32\n"
                 "attn.yield %y : f32";
  op.return_lse = 1;
  return op;
}

/// The message of attn_write_flash_op's failure on `op`, after checking
/// that it failed as an invalid argument and left `text` empty.
std::string failure(const attn_flash_op_text &op) {
  attn_text_value text = {};
  EXPECT_EQ(attn_write_flash_op(&op, &text), ATTN_INVALID_ARGUMENT);
  EXPECT_EQ(text.data, nullptr);
  EXPECT_EQ(text.size, 0u);
  return attn_last_error();
}

TEST(CAPIFlashOpText, WritesTheTextAttnCompileTakes) {
  attn_text_tensor captures[] = {tensor("f32", kHeads, 1)};
  attn_flash_op_text op = description(captures);
  attn_text_value text = {};
  ASSERT_EQ(attn_write_flash_op(&op, &text), ATTN_OK) << attn_last_error();
  std::string written(text.data, text.size);
  EXPECT_EQ(text.data[text.size], '\0');
  attn_text_value_free(&text);
  EXPECT_EQ(text.data, nullptr);
  EXPECT_EQ(written,
            "func.func @sdpa(%q: tensor<?x4x100x64xbf16>, %k: "
            "tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %len: "
            "tensor<?xi32>, %captured0: tensor<4xf32>) -> "
            "(tensor<?x4x100x64xbf16>, tensor<?x4x100xf32>) {\n"
            "  %o, %lse = attn.flash %q, %k, %v lengths(%len : tensor<?xi32>) "
            "captures(%captured0 : tensor<4xf32>) {scale = 0.125 : f32, mask = "
            "#attn.mask<causal, key_padding>} score_mod {\n"
            "  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: "
            "index, %capture0: tensor<4xf32>):\n"
            "    %c = tensor.extract %capture0[%h] : tensor<4xf32>\n"
            "    %y = arith.addf %score, %c : f32\n"
            "    attn.yield %y : f32\n"
            "  } : tensor<?x4x100x64xbf16>, tensor<?x2x?x64xbf16>, "
            "tensor<?x2x?x64xbf16> -> tensor<?x4x100x64xbf16>, "
            "tensor<?x4x100xf32>\n"
            "  return %o, %lse : tensor<?x4x100x64xbf16>, tensor<?x4x100xf32>\n"
            "}\n");

  // The text compiles (NVRTC; no GPU needed).
  attn_context *context = nullptr;
  ASSERT_EQ(attn_context_create("sm_80", "", &context), ATTN_OK)
      << attn_last_error();
  attn_kernel *kernel = nullptr;
  ASSERT_EQ(
      attn_compile(context, written.c_str(), nullptr, 0, 0, 0, 0, &kernel),
      ATTN_OK)
      << attn_last_error();
  attn_kernel_info info;
  ASSERT_EQ(attn_kernel_get_info(kernel, &info), ATTN_OK);
  EXPECT_EQ(info.writes_lse, 1);
  attn_kernel_destroy(kernel);
  attn_context_destroy(context);
}

TEST(CAPIFlashOpText, OptionalFieldsAndNames) {
  attn_flash_op_text op = {};
  const int64_t packed[] = {300, 8, 64}, offsets[] = {5};
  op.q = tensor("f16", packed, 3, "x");
  op.k = op.v = tensor("f16", packed, 3, "kv");
  op.cu_seqlens_q = tensor("i32", offsets, 1, "starts");
  op.cu_seqlens_k = tensor("i32", offsets, 1, "starts");
  op.scale = 0.5;
  op.has_window = 1;
  op.window_left = 63;
  op.window_right = 0;
  op.bottom_right = 1;
  op.output_name = "out";
  attn_text_value text = {};
  ASSERT_EQ(attn_write_flash_op(&op, &text), ATTN_OK) << attn_last_error();
  EXPECT_EQ(std::string(text.data, text.size),
            "%out = attn.flash %x, %kv, %kv cu_seqlens_q(%starts : "
            "tensor<5xi32>) cu_seqlens_k(%starts : tensor<5xi32>) {scale = "
            "0.5 : f32, mask = #attn.mask<window = [63, 0], bottom_right>} : "
            "tensor<300x8x64xf16>, tensor<300x8x64xf16>, "
            "tensor<300x8x64xf16> -> tensor<300x8x64xf16>");
  attn_text_value_free(&text);
  attn_text_value_free(&text); // emptied: freeing again is harmless
  attn_text_value_free(nullptr);
}

TEST(CAPIFlashOpText, BadArgumentsAreErrorsWithAMessage) {
  attn_text_tensor captures[] = {tensor("f32", kHeads, 1)};
  attn_text_value text = {};
  EXPECT_EQ(attn_write_flash_op(nullptr, &text), ATTN_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error(),
               "InvalidArgument: attn_write_flash_op: 'op' is NULL");
  attn_flash_op_text op = description(captures);
  EXPECT_EQ(attn_write_flash_op(&op, nullptr), ATTN_INVALID_ARGUMENT);
  EXPECT_STREQ(attn_last_error(),
               "InvalidArgument: attn_write_flash_op: 'text' is NULL");

  auto expectFailure = [](const attn_flash_op_text &bad,
                          const std::string &what) {
    std::string message = failure(bad);
    EXPECT_NE(message.find("attn_write_flash_op: " + what), std::string::npos)
        << "expected '" << what << "' in '" << message << "'";
  };
  op = description(captures);
  op.q.element = "f8";
  expectFailure(op, "q has element type \"f8\"; expected f16, bf16, f32, "
                    "i32, i64 or i1");
  op = description(captures);
  op.v.element = nullptr;
  expectFailure(op, "v has no element type (NULL)");
  op = description(captures);
  op.k.rank = -1;
  expectFailure(op, "k has rank -1; expected 0 to 8");
  op = description(captures);
  op.k.rank = 1 << 30;
  expectFailure(op, "k has rank 1073741824; expected 0 to 8");
  op = description(captures);
  op.lengths.shape = nullptr;
  expectFailure(op, "lengths has rank 1 but no shape (NULL)");
  op = description(captures);
  op.captures = nullptr;
  expectFailure(op, "num_captures is 1 but captures is NULL");
  op = description(captures);
  op.num_captures = -2;
  expectFailure(op, "num_captures is -2; expected >= 0");
  attn_text_tensor badCapture[] = {tensor("f32", kHeads, 1, "%x")};
  op = description(badCapture);
  expectFailure(op, "capture 0 is named '%x', which is not an SSA name");
  op = description(captures);
  op.score_mod = nullptr;
  expectFailure(op, "captures are read by a score_mod, and there is none");
  op = description(captures);
  op.lse_name = "len";
  expectFailure(op, "lengths and the logsumexp are both named 'len'");
  op = description(captures);
  op.function = "no spaces";
  expectFailure(op, "the function is named 'no spaces'");
}

} // namespace
