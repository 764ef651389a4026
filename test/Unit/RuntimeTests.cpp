//===- RuntimeTests.cpp - The JIT runtime without a GPU -------------------===//

#include "attn/Runtime/Cache.h"
#include "attn/Runtime/Context.h"
#include "attn/Runtime/Half.h"
#include "attn/Runtime/Nvrtc.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace attn;

namespace {

/// A fresh directory under the test's temp dir.
std::string freshDirectory(const std::string &name) {
  std::string dir = ::testing::TempDir() + "attn-" + name + "-" +
                    std::to_string(getpid());
  std::string cmd = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

/// The bytes of a CUDA cubin's ELF header (64-bit, little-endian, machine
/// 190) followed by `payload`: what the cache accepts as a cubin.
std::string fakeCubin(const std::string &payload, unsigned machine = 190) {
  std::string elf(64, '\0');
  elf.replace(0, 4, "\x7f" "ELF");
  elf[4] = 2; // 64-bit
  elf[5] = 1; // little-endian
  elf[18] = static_cast<char>(machine & 0xff);
  elf[19] = static_cast<char>(machine >> 8);
  return elf + payload;
}

CacheEntry fakeEntry(const std::string &payload) {
  CacheEntry e;
  e.cubin = fakeCubin(payload);
  e.log = "ptxas info : Used 42 registers";
  e.ptxas.parsed = true;
  e.ptxas.registers = 42;
  return e;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(Status, CarriesCodeAndMessage) {
  Status ok;
  EXPECT_TRUE(ok.isOk());
  EXPECT_EQ(ok.toString(), "ok");
  Status bad(StatusCode::CompileError, "boom");
  EXPECT_FALSE(bad.isOk());
  EXPECT_EQ(bad.toString(), "CompileError: boom");
  Result<int> value(3);
  EXPECT_TRUE(value.isOk());
  EXPECT_EQ(*value, 3);
  Result<int> error(Status(StatusCode::NoDevice, "none"));
  EXPECT_FALSE(error.isOk());
  EXPECT_EQ(error.status().code(), StatusCode::NoDevice);
}

TEST(Half, RoundTripsAndRounds) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 1.0f / 1024})
    EXPECT_EQ(halfToFloat(floatToHalf(f)), f) << f;
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 1.0f / 2048)), 1.0f);
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 3.0f / 2048)), 1.0f + 2.0f / 1024);
  EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(halfToFloat(floatToHalf(5.9604645e-8f)), 5.9604645e-8f); // smallest subnormal
  for (float f : {0.0f, 1.0f, -3.0f, 1.0078125f})
    EXPECT_EQ(bf16ToFloat(floatToBf16(f)), f) << f;
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 1.0f / 256)), 1.0f); // tie to even
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
}

TEST(CacheKey, DependsOnEveryPart) {
  std::string a = makeCacheKey("k", {"src", "opts", "sm_90a", "13.0"});
  EXPECT_EQ(a, makeCacheKey("k", {"src", "opts", "sm_90a", "13.0"}));
  EXPECT_NE(a, makeCacheKey("k", {"src2", "opts", "sm_90a", "13.0"}));
  EXPECT_NE(a, makeCacheKey("k", {"src", "opts", "sm_80", "13.0"}));
  EXPECT_NE(a, makeCacheKey("k", {"src", "opts", "sm_90a", "12.8"}));
  // Part boundaries matter.
  EXPECT_NE(makeCacheKey("k", {"ab", "c"}), makeCacheKey("k", {"a", "bc"}));
  EXPECT_EQ(a.rfind("k-", 0), 0u);
}

TEST(Cache, MissThenMemoryHitThenDiskHit) {
  std::string dir = freshDirectory("hits");
  int compiles = 0;
  auto compile = [&]() -> Result<CacheEntry> {
    ++compiles;
    return fakeEntry("cubin-bytes");
  };
  CacheOutcome outcome;
  {
    Cache cache(dir);
    auto first = cache.getOrCompile("key", compile, outcome);
    ASSERT_TRUE(first.isOk());
    EXPECT_EQ(outcome, CacheOutcome::Miss);
    auto second = cache.getOrCompile("key", compile, outcome);
    ASSERT_TRUE(second.isOk());
    EXPECT_EQ(outcome, CacheOutcome::MemoryHit);
    EXPECT_EQ(compiles, 1);
  }
  Cache fresh(dir);
  auto third = fresh.getOrCompile("key", compile, outcome);
  ASSERT_TRUE(third.isOk());
  EXPECT_EQ(outcome, CacheOutcome::DiskHit);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ((*third)->cubin, fakeCubin("cubin-bytes"));
  EXPECT_EQ((*third)->ptxas.registers, 42);
}

TEST(Cache, TruncatedEntryIsRebuiltNotLoaded) {
  std::string dir = freshDirectory("truncated");
  int compiles = 0;
  auto compile = [&]() -> Result<CacheEntry> {
    ++compiles;
    return fakeEntry(std::string(1000, 'x'));
  };
  CacheOutcome outcome;
  {
    Cache cache(dir);
    ASSERT_TRUE(cache.getOrCompile("key", compile, outcome).isOk());
  }
  std::string path = Cache(dir).pathFor("key");
  std::string bytes = readFile(path);
  ASSERT_GT(bytes.size(), 100u);
  writeFile(path, bytes.substr(0, bytes.size() / 2));

  Cache cache(dir);
  auto entry = cache.getOrCompile("key", compile, outcome);
  ASSERT_TRUE(entry.isOk());
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_EQ(compiles, 2);
  EXPECT_EQ(cache.stats().corruptEntries, 1);
  EXPECT_EQ((*entry)->cubin, fakeCubin(std::string(1000, 'x')));
  // The rebuilt entry is whole again.
  EXPECT_EQ(readFile(path).size(), bytes.size());
}

TEST(Cache, CorruptedByteIsDetected) {
  std::string dir = freshDirectory("corrupt");
  int compiles = 0;
  auto compile = [&]() -> Result<CacheEntry> {
    ++compiles;
    return fakeEntry("payload-payload-payload");
  };
  CacheOutcome outcome;
  ASSERT_TRUE(Cache(dir).getOrCompile("key", compile, outcome).isOk());
  std::string path = Cache(dir).pathFor("key");
  std::string bytes = readFile(path);
  bytes[bytes.size() - 3] ^= 0x20;
  writeFile(path, bytes);
  Cache cache(dir);
  ASSERT_TRUE(cache.getOrCompile("key", compile, outcome).isOk());
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_EQ(compiles, 2);
}

TEST(Cache, CompileErrorsAreReturnedAndNotCached) {
  Cache cache(freshDirectory("errors"));
  CacheOutcome outcome;
  auto failing = []() -> Result<CacheEntry> {
    return Status(StatusCode::CompileError, "bad kernel");
  };
  auto result = cache.getOrCompile("key", failing, outcome);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().message(), "bad kernel");
  auto ok = cache.getOrCompile(
      "key", [] { return Result<CacheEntry>(fakeEntry("x")); }, outcome);
  EXPECT_TRUE(ok.isOk());
  EXPECT_EQ(outcome, CacheOutcome::Miss);
}

TEST(Cache, ThreadsCompileOnce) {
  Cache cache(freshDirectory("threads"));
  std::atomic<int> compiles{0};
  auto compile = [&]() -> Result<CacheEntry> {
    ++compiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return fakeEntry("shared");
  };
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      CacheOutcome outcome;
      auto entry = cache.getOrCompile("key", compile, outcome);
      if (entry.isOk() && (*entry)->cubin == fakeCubin("shared"))
        ++ok;
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(ok, 8);
  EXPECT_EQ(compiles, 1);
}

TEST(Cache, ProcessesShareOneEntry) {
  std::string dir = freshDirectory("processes");
  std::string marks = dir + ".marks";
  std::remove(marks.c_str());
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Cache cache(dir);
      CacheOutcome outcome;
      auto entry = cache.getOrCompile(
          "key",
          [&]() -> Result<CacheEntry> {
            std::ofstream(marks, std::ios::app) << "c";
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            return fakeEntry(std::string(4096, 'p'));
          },
          outcome);
      _exit(entry.isOk() && (*entry)->cubin == fakeCubin(std::string(4096, 'p'))
                ? 0
                : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // The file lock makes the later processes find the first one's entry.
  EXPECT_EQ(readFile(marks), "c");
  CacheOutcome outcome;
  Cache cache(dir);
  ASSERT_TRUE(cache.getOrCompile("key", [] { return Result<CacheEntry>(Status(StatusCode::IoError, "should not compile")); }, outcome).isOk());
  EXPECT_EQ(outcome, CacheOutcome::DiskHit);
}

/// A cache with one entry for "key" on disk, and how many times its
/// compile ran.
struct DiskEntryFixture {
  std::string dir;
  std::string path;
  int compiles = 0;
  Cache::Compile compile = [this]() -> Result<CacheEntry> {
    ++compiles;
    return fakeEntry("the-right-kernel");
  };

  explicit DiskEntryFixture(const std::string &name)
      : dir(freshDirectory(name)) {
    CacheOutcome outcome;
    Cache cache(dir);
    EXPECT_TRUE(cache.getOrCompile("key", compile, outcome).isOk());
    path = cache.pathFor("key");
  }

  /// A fresh cache's lookup of "key": must be a miss that rebuilds the
  /// right entry, and leave a whole entry on disk.
  void expectRebuilt() {
    Cache cache(dir);
    CacheOutcome outcome;
    auto entry = cache.getOrCompile("key", compile, outcome);
    ASSERT_TRUE(entry.isOk()) << entry.status().toString();
    EXPECT_EQ(outcome, CacheOutcome::Miss);
    EXPECT_EQ(compiles, 2);
    EXPECT_EQ(cache.stats().corruptEntries, 1);
    EXPECT_EQ((*entry)->cubin, fakeCubin("the-right-kernel"));
    Cache again(dir);
    ASSERT_TRUE(again.getOrCompile("key", compile, outcome).isOk());
    EXPECT_EQ(outcome, CacheOutcome::DiskHit);
  }
};

TEST(Cache, AnotherKernelsEntryCopiedOverIsAMiss) {
  DiskEntryFixture f("other-key");
  Cache cache(f.dir);
  CacheOutcome outcome;
  ASSERT_TRUE(cache
                  .getOrCompile(
                      "other",
                      [] { return Result<CacheEntry>(fakeEntry("another")); },
                      outcome)
                  .isOk());
  // A whole, checksummed entry, but of another key: once served as a hit.
  writeFile(f.path, readFile(cache.pathFor("other")));
  f.expectRebuilt();
}

TEST(Cache, AnEntryWhoseCubinIsNotCudaElfIsAMiss) {
  DiskEntryFixture f("not-elf");
  CacheEntry bad = fakeEntry("x");
  bad.cubin = std::string(100, 'z');
  writeFile(f.path, serializeCacheEntry("key", bad));
  f.expectRebuilt();
}

TEST(Cache, AnEntryWhoseCubinIsForAnotherMachineIsAMiss) {
  DiskEntryFixture f("x86-elf");
  CacheEntry bad = fakeEntry("x");
  bad.cubin = fakeCubin("x", /*EM_X86_64=*/62);
  writeFile(f.path, serializeCacheEntry("key", bad));
  f.expectRebuilt();
}

TEST(Cache, ASymlinkToDevZeroIsNotRead) {
  DiskEntryFixture f("dev-zero");
  std::remove(f.path.c_str());
  ASSERT_EQ(symlink("/dev/zero", f.path.c_str()), 0);
  // Reading it whole was a bad_alloc.
  f.expectRebuilt();
}

TEST(Cache, AFifoIsNotWaitedOn) {
  DiskEntryFixture f("fifo");
  std::remove(f.path.c_str());
  ASSERT_EQ(mkfifo(f.path.c_str(), 0644), 0);
  // Opening it for reading waited for a writer forever.
  alarm(20);
  f.expectRebuilt();
  alarm(0);
}

TEST(Cache, AnOversizedEntryIsNotRead) {
  DiskEntryFixture f("oversized");
  int fd = open(f.path.c_str(), O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, Cache::kMaxEntryBytes + 1), 0); // sparse
  close(fd);
  f.expectRebuilt();
}

TEST(Cache, AnInvalidCompiledCubinIsAnErrorNotAnEntry) {
  Cache cache(freshDirectory("invalid-compile"));
  CacheOutcome outcome;
  auto result = cache.getOrCompile(
      "key",
      [] {
        CacheEntry e;
        e.cubin = "not a cubin";
        return Result<CacheEntry>(e);
      },
      outcome);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::CompileError);
  EXPECT_NE(result.status().message().find("less than an ELF header"),
            std::string::npos)
      << result.status().message();
}

TEST(Cache, ParseRejectsEveryTruncation) {
  std::string bytes = serializeCacheEntry("key", fakeEntry("payload"));
  CacheEntry entry;
  ASSERT_TRUE(parseCacheEntry(bytes, "key", entry).isOk());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(parseCacheEntry(bytes.substr(0, n), "key", entry).isOk()) << n;
  EXPECT_FALSE(parseCacheEntry(bytes, "kez", entry).isOk());
}

TEST(Ptxas, ParsesTheReportOfOneEntry) {
  // "mine_combine" comes first and starts with "mine": not mine's report.
  std::string log =
      "ptxas info    : Compiling entry function 'mine_combine' for 'sm_90a'\n"
      "ptxas info    : Function properties for mine_combine\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 0 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
      "ptxas info    : Function properties for other\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 99 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compiling entry function 'mine' for 'sm_90a'\n"
      "ptxas info    : Function properties for mine\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 920 bytes cmem[0]\n";
  PtxasReport r = parsePtxasReport(log, "mine");
  EXPECT_TRUE(r.parsed);
  EXPECT_EQ(r.registers, 168);
  EXPECT_EQ(r.spillStoreBytes, 0);
  EXPECT_EQ(r.constantBytes, 920);
  PtxasReport o = parsePtxasReport(log, "other");
  EXPECT_EQ(o.registers, 99);
  EXPECT_EQ(o.stackFrameBytes, 8);
  EXPECT_EQ(o.spillStoreBytes, 4);
  EXPECT_EQ(o.sharedBytes, 1024);
  EXPECT_FALSE(parsePtxasReport(log, "missing").parsed);
  EXPECT_EQ(parsePtxasReport(log, "mine_combine").registers, 32);
}

TEST(Nvrtc, CompilesAndReportsResources) {
  auto nvrtc = Nvrtc::get();
  ASSERT_TRUE(nvrtc.isOk()) << nvrtc.status().toString();
  auto out = (*nvrtc)->compile(
      "#include \"attn/common.cuh\"\n"
      "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = attn::fastExp2(x[threadIdx.x]); }\n",
      "k.cu", "k", "sm_80");
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  EXPECT_GT(out->cubin.size(), 0u);
  EXPECT_TRUE(out->ptxas.parsed);
  EXPECT_GT(out->ptxas.registers, 0);
}

TEST(Nvrtc, ErrorsCarryTheLogAndOptions) {
  auto nvrtc = Nvrtc::get();
  ASSERT_TRUE(nvrtc.isOk());
  auto out = (*nvrtc)->compile("extern \"C\" __global__ void k() { undeclared(); }\n",
                               "broken.cu", "k", "sm_90a");
  ASSERT_FALSE(out.isOk());
  EXPECT_EQ(out.status().code(), StatusCode::CompileError);
  EXPECT_NE(out.status().message().find("broken.cu"), std::string::npos);
  EXPECT_NE(out.status().message().find("undeclared"), std::string::npos);
  EXPECT_NE(out.status().message().find("--gpu-architecture=sm_90a"),
            std::string::npos);
}

TEST(Context, RejectsAMalformedArch) {
  Context::Options options;
  options.arch = "hopper";
  auto ctx = Context::create(options);
  ASSERT_FALSE(ctx.isOk());
  EXPECT_EQ(ctx.status().code(), StatusCode::InvalidArgument);
}

TEST(Driver, MissingGpuIsAStatusNotACrash) {
  auto device = Context::device();
  if (device.isOk())
    GTEST_SKIP() << "a GPU is present: " << device->name;
  EXPECT_EQ(device.status().code(), StatusCode::NoDevice);
  EXPECT_FALSE(device.status().message().empty());
  auto buffer = DeviceBuffer::allocate(16);
  EXPECT_FALSE(buffer.isOk());
  EXPECT_EQ(buffer.status().code(), StatusCode::NoDevice);
}

} // namespace
