//===- MemoryContext.h - A runtime context for unit tests -------*- C++ -*-===//

#ifndef ATTN_TEST_UNIT_MEMORYCONTEXT_H
#define ATTN_TEST_UNIT_MEMORYCONTEXT_H

#include "attn/Runtime/Context.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace attn::test {

/// A context for `arch` with no disk cache, so that every test compiles
/// afresh and leaves nothing behind; it needs no GPU.
inline std::unique_ptr<Context>
memoryContext(const std::string &arch = "sm_90a") {
  Context::Options options;
  options.arch = arch;
  options.diskCache = false;
  auto ctx = Context::create(options);
  EXPECT_TRUE(ctx.isOk()) << ctx.status().toString();
  return std::move(*ctx);
}

} // namespace attn::test

#endif // ATTN_TEST_UNIT_MEMORYCONTEXT_H
