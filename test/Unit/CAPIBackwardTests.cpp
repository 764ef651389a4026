//===- CAPIBackwardTests.cpp - The C API's training entries ---------------===//
//
// Links libattn_c.so as a binding would. No GPU needed: the training step
// compiles, reports its backward's workspace, and refuses bad arguments
// with a message.
//
//===----------------------------------------------------------------------===//

#include "attn-c/attn.h"

#include <gtest/gtest.h>

#include <string>

namespace {

const char *kForward = R"(
func.func @f(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}
)";

TEST(CAPIBackward, CompilesTheStepAndSizesTheWorkspace) {
  attn_context *context = nullptr;
  // sm_90a: the warp-specialized wgmma backward, whose dQ is an f32 sum.
  ASSERT_EQ(attn_context_create("sm_90a", "", &context), ATTN_OK) << attn_last_error();
  attn_kernel *forward = nullptr, *backward = nullptr;
  ASSERT_EQ(attn_compile_training(context, kForward, 0, &forward, &backward), ATTN_OK)
      << attn_last_error();
  attn_kernel_info info;
  ASSERT_EQ(attn_kernel_get_info(forward, &info), ATTN_OK);
  EXPECT_EQ(info.writes_lse, 1);
  ASSERT_EQ(attn_kernel_get_info(backward, &info), ATTN_OK);
  EXPECT_EQ(std::string(info.name).rfind("attn_bwd_bf16_hd64_gqa2_causal_", 0), 0u)
      << info.name;

  attn_backward_args args = {};
  args.batch = 1;
  args.seq_q = args.seq_kv = 100;
  uint64_t bytes = 0;
  ASSERT_EQ(attn_backward_workspace_size(backward, &args, &bytes), ATTN_OK)
      << attn_last_error();
  // D per row (256-byte aligned) and the f32 dQ sum, in whole query tiles
  // of 128 rows per head (4 heads of 100 rows).
  EXPECT_NE(std::string(info.name).find("_sm90ws_128x128w12"), std::string::npos)
      << info.name;
  EXPECT_EQ(bytes, (400u * 4 + 255) / 256 * 256 + 4u * 128 * 64 * 4);
  args.deterministic = 1;
  ASSERT_EQ(attn_backward_workspace_size(backward, &args, &bytes), ATTN_OK);
  EXPECT_EQ(bytes, (400u * 4 + 255) / 256 * 256);

  // Validation runs before any driver call.
  EXPECT_EQ(attn_launch_backward(backward, &args, nullptr), ATTN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(attn_last_error()).find("'q' is a null pointer"),
            std::string::npos)
      << attn_last_error();
  EXPECT_EQ(attn_launch_backward(backward, nullptr, nullptr), ATTN_INVALID_ARGUMENT);
  attn_kernel_destroy(forward);
  attn_kernel_destroy(backward);
  attn_context_destroy(context);
}

TEST(CAPIBackward, ATrainingStepNeedsOneAttention) {
  attn_context *context = nullptr;
  ASSERT_EQ(attn_context_create("sm_80", "", &context), ATTN_OK);
  attn_kernel *forward = nullptr, *backward = nullptr;
  EXPECT_NE(attn_compile_training(context, "func.func @f() { return }", 0,
                                  &forward, &backward),
            ATTN_OK);
  EXPECT_NE(std::string(attn_last_error()).find("no attn.flash to differentiate"),
            std::string::npos)
      << attn_last_error();
  attn_context_destroy(context);
}

} // namespace
