//===- ServingTests.cpp - Ragged batches through the API and runtime ------===//
//
// What needs no GPU: the graph builder's attn.flash with offsets, its
// compiled kernel's spec, launch validation and the schedule's bound on the
// m-blocks. The kernels themselves are checked by test/GPU/serving.
//
//===----------------------------------------------------------------------===//

#include "attn/Variants/KernelVariants.h"
#include "attn/attn.h"

#include "MemoryContext.h"

#include <gtest/gtest.h>

#include <random>

using namespace attn;

namespace {

using attn::test::memoryContext;

/// A ragged batch of 4 sequences, GQA 8/2 at head dim 64.
struct VarlenGraph {
  Graph g;
  Graph::Tensor q, k, v, cuQ, cuK;
  VarlenGraph() {
    q = g.input("q", DataType::BF16, {300, 8, 64});
    k = g.input("k", DataType::BF16, {500, 2, 64});
    v = g.input("v", DataType::BF16, {500, 2, 64});
    cuQ = g.input("cu_q", DataType::I32, {5});
    cuK = g.input("cu_k", DataType::I32, {5});
  }
};

TEST(Varlen, GraphWritesOneFlashOpWithTheOffsets) {
  VarlenGraph vg;
  Graph::VarlenOptions options;
  options.causal = true;
  options.returnLse = true;
  options.scoreMod = "%c = arith.constant 30.0 : f32\n"
                     "    %d = arith.divf %score, %c : f32\n"
                     "    %t = math.tanh %d : f32\n"
                     "    %y = arith.mulf %t, %c : f32\n"
                     "    attn.yield %y : f32";
  auto out = vg.g.varlen(vg.q, vg.k, vg.v, vg.cuQ, vg.cuK, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  ASSERT_TRUE(out->lse.has_value());
  vg.g.output(out->output);
  vg.g.output(*out->lse);
  auto text = vg.g.toMLIR();
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  EXPECT_NE(text->find("cu_seqlens_q(%cu_q : tensor<5xi32>) cu_seqlens_k(%cu_k "
                       ": tensor<5xi32>) {scale = 0.125 : f32, mask = "
                       "#attn.mask<causal, bottom_right>} score_mod {"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("-> tensor<300x8x64xbf16>, tensor<8x300xf32>"),
            std::string::npos);

  // It compiles as is to one kernel of a ragged batch; on sm_90a the
  // cp.async wgmma variant (the TMA one reads dense batches).
  auto ctx = memoryContext();
  auto compiled = compileGraph(*ctx, vg.g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(compiled->kernels.size(), 1u);
  const KernelSpec &spec = compiled->kernels[0]->spec();
  EXPECT_TRUE(spec.varlen);
  EXPECT_EQ(spec.variant, "sm90");
  EXPECT_TRUE(spec.writesLse && spec.scoreMod && spec.causal && spec.bottomRight);
  EXPECT_EQ(spec.batch, 4);
  EXPECT_EQ(spec.seqQ, 300);
  EXPECT_EQ(spec.seqKV, 500);
  EXPECT_NE(spec.name.find("_varlen_sm90_"), std::string::npos) << spec.name;
}

TEST(Varlen, GraphShapeErrorsNameTheOperands) {
  VarlenGraph vg;
  auto dense = vg.g.input("dense", DataType::BF16, {1, 8, 300, 64});
  auto bad = vg.g.varlen(dense, vg.k, vg.v, vg.cuQ, vg.cuK, {});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find(
                "'dense' has shape 1x8x300x64; expected packed [tokens, heads, "
                "head_dim]"),
            std::string::npos)
      << bad.status().message();
  auto fewer = vg.g.input("cu_short", DataType::I32, {4});
  bad = vg.g.varlen(vg.q, vg.k, vg.v, vg.cuQ, fewer, {});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("differ in batch: 5 and 4"),
            std::string::npos)
      << bad.status().message();
  auto floats = vg.g.input("cu_f", DataType::F32, {5});
  bad = vg.g.varlen(vg.q, vg.k, vg.v, floats, vg.cuK, {});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("'cu_f' must be i32 [batch + 1] offsets"),
            std::string::npos)
      << bad.status().message();
}

/// The compiled kernel of VarlenGraph and arguments that would be valid on
/// a GPU (validate() reads no device memory: host memory stands in).
struct VarlenLaunch {
  std::shared_ptr<KernelGroup> kernel;
  FlashArgs args;
  std::vector<char> storage = std::vector<char>(1 << 20);

  explicit VarlenLaunch(Context &ctx, const std::string &variant = "") {
    VarlenGraph vg;
    auto out = vg.g.varlen(vg.q, vg.k, vg.v, vg.cuQ, vg.cuK, {});
    vg.g.output(out->output);
    CompileOptions options;
    options.variant = variant;
    auto compiled = compileGraph(ctx, vg.g, options);
    EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
    kernel = compiled->kernels[0];
    char *base = storage.data() +
                 (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
    // Packed [tokens, heads, dim] as BHSD strides; the batch stride is
    // ignored (here, garbage).
    auto packed = [&](int64_t heads, int64_t dim) {
      TensorArg t;
      t.data = base;
      t.strides[0] = 12345;
      t.strides[1] = dim;
      t.strides[2] = heads * dim;
      t.strides[3] = 1;
      return t;
    };
    args.batch = 4;
    args.seqQ = 300;
    args.seqKV = 500;
    args.q = args.o = packed(8, 64);
    args.k = args.v = packed(2, 64);
    args.cuSeqlensQ = args.cuSeqlensK = reinterpret_cast<const int *>(base);
  }
};

TEST(Varlen, ValidateNeedsTheOffsetsAndIgnoresTheBatchStride) {
  auto ctx = memoryContext();
  VarlenLaunch f(*ctx);
  EXPECT_TRUE(f.kernel->validate(f.args).isOk())
      << f.kernel->validate(f.args).message();
  FlashArgs a = f.args;
  a.cuSeqlensK = nullptr;
  EXPECT_NE(f.kernel->validate(a).message().find(
                "runs a ragged batch but 'cu_seqlens_q' or 'cu_seqlens_k' is "
                "null"),
            std::string::npos);
  a = f.args;
  a.batch = 3; // the IR's offsets hold 4 sequences
  EXPECT_NE(f.kernel->validate(a).message().find("specialized for batch 4"),
            std::string::npos);
  a = f.args;
  a.maxSeqlenK = -1;
  EXPECT_NE(f.kernel->validate(a).message().find(
                "max_seqlen_q and max_seqlen_k must be 0 (unknown) or positive"),
            std::string::npos);
  a = f.args;
  a.q.strides[2] = 100; // tokens must still be 16-byte steps
  EXPECT_NE(f.kernel->validate(a).message().find("multiple of 8"),
            std::string::npos);
}

TEST(Varlen, DenseKernelsRefuseOffsets) {
  auto ctx = memoryContext();
  Graph g;
  auto q = g.input("q", DataType::BF16, {2, 4, 64, 64});
  auto out = g.sdpa(q, q, q, {});
  g.output(*out);
  auto compiled = compileGraph(*ctx, g);
  ASSERT_TRUE(compiled.isOk());
  std::vector<char> storage(1 << 16);
  char *base = storage.data() +
               (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
  int64_t shape[4] = {2, 4, 64, 64};
  FlashArgs a;
  a.batch = 2;
  a.seqQ = a.seqKV = 64;
  a.q = a.k = a.v = a.o = TensorArg::contiguous(base, shape);
  a.cuSeqlensQ = reinterpret_cast<const int *>(base);
  EXPECT_NE(compiled->kernels[0]->validate(a).message().find(
                "compiled for a dense batch"),
            std::string::npos);
}

TEST(Varlen, ScheduleBoundsEveryBatchsBlocks) {
  // Any lengths of B sequences summing to at most T take at most
  // varlenMBlocks(B, T, blockM) blocks: the launch never misses one.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    int batch = 1 + int(rng() % 40), blockM = 16 << (rng() % 4);
    int total = 1 + int(rng() % 3000);
    std::vector<int> cuts = {0, total};
    for (int b = 1; b < batch; ++b)
      cuts.push_back(int(rng() % (total + 1)));
    std::sort(cuts.begin(), cuts.end());
    int blocks = 0;
    for (int b = 0; b < batch; ++b)
      blocks += (cuts[b + 1] - cuts[b] + blockM - 1) / blockM;
    ASSERT_LE(blocks, varlenMBlocks(batch, total, blockM))
        << batch << " sequences, " << total << " tokens, blockM " << blockM;
  }
  // Tight where the counts are known: one sequence, and one token each.
  EXPECT_EQ(varlenMBlocks(1, 1000, 128), 8);
  EXPECT_EQ(varlenMBlocks(64, 64, 128), 64);
  // The kernel's schedule: one run of m-blocks per query head, batch 1.
  auto ctx = memoryContext();
  VarlenLaunch f(*ctx);
  TileSchedule s = f.kernel->flash()->schedule(4, 300, 1);
  EXPECT_EQ(s.batch, 1);
  EXPECT_EQ(s.heads, 8);
  EXPECT_EQ(s.mBlocks, varlenMBlocks(4, 300, f.kernel->spec().blockM));
  EXPECT_FALSE(f.kernel->flash()->packsQueryHeads(1));
}

TEST(Varlen, TheTmaVariantIsRefused) {
  auto ctx = memoryContext();
  VarlenGraph vg;
  auto out = vg.g.varlen(vg.q, vg.k, vg.v, vg.cuQ, vg.cuK, {});
  vg.g.output(out->output);
  CompileOptions options;
  options.variant = "sm90ws";
  auto compiled = compileGraph(*ctx, vg.g, options);
  ASSERT_FALSE(compiled.isOk());
  EXPECT_NE(compiled.status().message().find(
                "variant sm90ws cannot run this attention: it needs a dense "
                "batch"),
            std::string::npos)
      << compiled.status().message();
}

TEST(Varlen, SinksAreAnOperandOfTheKernel) {
  VarlenGraph vg;
  auto sinks = vg.g.input("sinks", DataType::F32, {8});
  Graph::VarlenOptions options;
  options.sinks = sinks;
  auto out = vg.g.varlen(vg.q, vg.k, vg.v, vg.cuQ, vg.cuK, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  vg.g.output(out->output);
  auto text = vg.g.toMLIR();
  ASSERT_TRUE(text.isOk());
  EXPECT_NE(text->find("sinks(%sinks : tensor<8xf32>)"), std::string::npos) << *text;
  auto ctx = memoryContext("sm_80");
  auto compiled = compileGraph(*ctx, vg.g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const FlashKernel &kernel = *compiled->kernels[0]->flash();
  EXPECT_TRUE(kernel.spec().sinks);
  EXPECT_NE(kernel.spec().name.find("_sinks_varlen_sm80_"), std::string::npos);

  // A launch must give them, and only to a kernel that has them.
  VarlenLaunch f(*ctx);
  FlashArgs a = f.args;
  a.sinks = reinterpret_cast<const float *>(a.q.data);
  EXPECT_NE(f.kernel->validate(a).message().find("compiled without sinks"),
            std::string::npos);
  a.sinks = nullptr;
  EXPECT_NE(kernel.validate(a).message().find(
                "the kernel has attention sinks but 'sinks' is null"),
            std::string::npos);

  VarlenGraph bad;
  auto perKv = bad.g.input("per_kv", DataType::F32, {2});
  options.sinks = perKv;
  auto wrong = bad.g.varlen(bad.q, bad.k, bad.v, bad.cuQ, bad.cuK, options);
  ASSERT_FALSE(wrong.isOk());
  EXPECT_NE(wrong.status().message().find(
                "'per_kv' must be f32 [8] (one sink logit per query head), got "
                "f32 2"),
            std::string::npos)
      << wrong.status().message();
}

TEST(Sinks, TheGraphFormFusesIntoTheKernelsOperand) {
  // sdpa's graph with sinks: a column concatenated to the scores and sliced
  // off the probabilities, which attn-fuse turns into one kernel with sinks.
  Graph g;
  auto q = g.input("q", DataType::BF16, {2, 8, 64, 64});
  auto k = g.input("k", DataType::BF16, {2, 2, 96, 64});
  auto sinks = g.input("sinks", DataType::F32, {1, 8, 1, 1});
  Graph::SdpaOptions options;
  options.causal = true;
  options.bottomRight = true;
  options.sinks = sinks;
  auto out = g.sdpa(q, k, k, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  g.output(*out);
  auto text = g.toMLIR();
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  EXPECT_NE(text->find("tensor.concat dim(3)"), std::string::npos) << *text;
  EXPECT_NE(text->find("tensor.extract_slice"), std::string::npos);
  auto ctx = memoryContext("sm_80");
  auto compiled = compileGraph(*ctx, g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(compiled->kernels.size(), 1u);
  EXPECT_TRUE(compiled->kernels[0]->spec().sinks);
  EXPECT_NE(compiled->loweredIR.find("sinks(%arg2 : tensor<1x8x1x1xf32>)"),
            std::string::npos)
      << compiled->loweredIR;

  Graph h;
  auto hq = h.input("q", DataType::BF16, {2, 8, 64, 64});
  auto flat = h.input("flat", DataType::F32, {8});
  options.sinks = flat;
  auto bad = h.sdpa(hq, hq, hq, options);
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find(
                "'flat' must be f32 [1, 8, 1, 1] (one sink logit per query "
                "head), got f32 8"),
            std::string::npos)
      << bad.status().message();
}

TEST(Paged, GraphWritesOneFlashOpOverThePages) {
  Graph g;
  auto q = g.input("q", DataType::BF16, {8, 32, 1, 128});
  auto kc = g.input("k_cache", DataType::BF16, {600, 8, 16, 128});
  auto vc = g.input("v_cache", DataType::BF16, {600, 8, 16, 128});
  auto len = g.input("cache_seqlens", DataType::I32, {8});
  auto table = g.input("block_table", DataType::I32, {8, 64});
  auto sinks = g.input("sinks", DataType::F32, {32});
  Graph::VarlenOptions options;
  options.causal = true;
  options.sinks = sinks;
  auto out = g.paged(q, kc, vc, len, table, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  g.output(out->output);
  auto text = g.toMLIR();
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  // The scale is the f32 1/sqrt(128), written exactly (writeFlashOp).
  EXPECT_NE(text->find("lengths(%cache_seqlens : tensor<8xi32>) sinks(%sinks : "
                       "tensor<32xf32>) block_table(%block_table : "
                       "tensor<8x64xi32>) {scale = 0.0883883461356163 : f32, "
                       "mask = "
                       "#attn.mask<causal, bottom_right, key_padding>}"),
            std::string::npos)
      << *text;
  auto ctx = memoryContext();
  auto compiled = compileGraph(*ctx, g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const FlashKernel &kernel = *compiled->kernels[0]->flash();
  EXPECT_TRUE(kernel.spec().paged && kernel.spec().sinks);
  EXPECT_EQ(kernel.spec().seqKV, 64 * 16); // keys per sequence
  EXPECT_EQ(kernel.spec().variant, "sm90");

  // Launch arguments: the table, the cache's pages and page size.
  std::vector<char> storage(1 << 16);
  char *base = storage.data() +
               (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
  int64_t qShape[4] = {8, 32, 1, 128}, kShape[4] = {600, 8, 16, 128};
  FlashArgs a;
  a.batch = 8;
  a.seqQ = 1;
  a.seqKV = 64 * 16;
  a.q = a.o = TensorArg::contiguous(base, qShape);
  a.k = a.v = TensorArg::contiguous(base, kShape);
  a.lengths = a.blockTable = reinterpret_cast<const int *>(base);
  a.sinks = reinterpret_cast<const float *>(base);
  a.blockTableStride = 64;
  a.numPages = 600;
  a.pageSize = 16;
  EXPECT_TRUE(kernel.validate(a).isOk()) << kernel.validate(a).message();
  FlashArgs bad = a;
  bad.blockTable = nullptr;
  EXPECT_NE(kernel.validate(bad).message().find(
                "reads a paged cache but 'block_table' is null"),
            std::string::npos);
  bad = a;
  bad.pageSize = 24; // 1024 keys are not whole pages of 24
  EXPECT_NE(kernel.validate(bad).message().find(
                "seqKV a multiple of pageSize"),
            std::string::npos);
  bad = a;
  bad.blockTableStride = 10;
  EXPECT_NE(kernel.validate(bad).message().find("blockTableStride 10"),
            std::string::npos);
  // A dense kernel refuses a table.
  VarlenLaunch dense(*ctx);
  FlashArgs d = dense.args;
  d.blockTable = reinterpret_cast<const int *>(base);
  EXPECT_NE(dense.kernel->validate(d).message().find(
                "was compiled for contiguous K/V"),
            std::string::npos);
}

TEST(Paged, GraphShapeErrorsNameTheOperands) {
  Graph g;
  auto q = g.input("q", DataType::BF16, {8, 32, 1, 128});
  auto kc = g.input("k_cache", DataType::BF16, {600, 8, 16, 128});
  auto len = g.input("cache_seqlens", DataType::I32, {8});
  auto table = g.input("block_table", DataType::I32, {4, 64});
  auto bad = g.paged(q, kc, kc, len, table, {});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find(
                "'block_table' must be i32 [8, pages per sequence], got i32 "
                "4x64"),
            std::string::npos)
      << bad.status().message();
  auto flat = g.input("flat", DataType::BF16, {600, 16, 128});
  bad = g.paged(q, flat, flat, len, table, {});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find(
                "'flat' has shape 600x16x128; expected pages [pages, heads, "
                "page_size, head_dim]"),
            std::string::npos)
      << bad.status().message();
}

/// Decode of `tokens` static tokens with GQA 8/2 and `mask`.
std::string packedDecode(int tokens, const std::string &mask,
                         int headsQ = 8) {
  std::string q = "tensor<2x" + std::to_string(headsQ) + "x" +
                  std::to_string(tokens) + "x64xbf16>";
  return "func.func @decode(%q: " + q +
         ", %k: tensor<2x2x512x64xbf16>, %len: tensor<2xi32>) -> " + q +
         " {\n  %o = attn.flash %q, %k, %k lengths(%len : tensor<2xi32>) "
         "{scale = 0.125 : f32, mask = #attn.mask<" +
         mask + ">} : " + q +
         ", tensor<2x2x512x64xbf16>, tensor<2x2x512x64xbf16> -> " + q +
         "\n  return %o : " + q + "\n}\n";
}

TEST(Paged, TheRegisterModelKeepsWgmmaFromSpilling) {
  // A paged cache's copies (common.cuh's TilePages, PageByPage) cost the
  // wgmma kernel about 40 registers with a score_mod: counted lower (with
  // the per-row lookups that preceded them), head dim 128 with a
  // score_mod took 128 x 128 tiles with eight warps and spilled 12 bytes
  // (test/Python/varlen-mlir.test), and head dim 256 (16 pages a thread
  // at 64 x 64) has none to spare.
  const KernelVariant &sm90 = *findKernelVariant("sm90");
  OperandShape mod{128, 128};
  mod.paged = mod.elementwise = true;
  EXPECT_GT(sm90.registers({128, 128, 8, 2}, mod),
            sm90.registerLimit({128, 128, 8, 2}));
  OperandShape paged{128, 128};
  paged.paged = true;
  EXPECT_LE(sm90.registers({128, 128, 8, 3}, paged),
            sm90.registerLimit({128, 128, 8, 3}));
  OperandShape paged256{256, 256};
  paged256.paged = true;
  EXPECT_GT(sm90.registers({64, 64, 4, 3}, paged256),
            sm90.registerLimit({64, 64, 4, 3}));
  EXPECT_GT(sm90.registers({128, 64, 8, 2}, paged256),
            sm90.registerLimit({128, 64, 8, 2}));
}

TEST(PackedRows, AFewTokensAndTheirHeadsShareABlockUnderAnyMask) {
  // 4 tokens x 4 query heads of each K/V head: 16 rows per (batch, K/V
  // head), one block of them, under causal masks and windows aligned to
  // each sequence's length, which one-token views of heads could not take.
  auto ctx = memoryContext("sm_80");
  auto compiled = compileSource(
      *ctx, packedDecode(4, "causal, window = [63, 0], bottom_right, key_padding"));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const FlashKernel &kernel = *compiled->kernels[0]->flash();
  EXPECT_EQ(kernel.spec().packGroup, 4);
  EXPECT_NE(kernel.spec().source.find("static constexpr int kPackGroup = 4;"),
            std::string::npos);
  ASSERT_TRUE(kernel.packsQueryHeads(4));
  RowPacking packing = kernel.rowPacking(4);
  EXPECT_TRUE(packing.tokens);
  EXPECT_EQ(packing.rows(4), 16);
  TileSchedule s = kernel.schedule(2, 4, 1);
  EXPECT_EQ(s.heads, 2); // the K/V heads
  EXPECT_EQ(s.mBlocks, (16 + kernel.spec().blockM - 1) / kernel.spec().blockM);
  // The TMA kernel loads a block's rows as one box of tokens by heads: it
  // packs groups that divide its consumers' 64 rows (4 here), not 6.
  auto ctx90 = memoryContext("sm_90a");
  CompileOptions ws;
  ws.variant = "sm90ws";
  auto persistent = compileSource(*ctx90, packedDecode(4, "key_padding"), ws);
  ASSERT_TRUE(persistent.isOk()) << persistent.status().toString();
  EXPECT_EQ(persistent->kernels[0]->spec().packGroup, 4);
  EXPECT_TRUE(persistent->kernels[0]->flash()->packsQueryHeads(4));
  EXPECT_EQ(persistent->kernels[0]->flash()->schedule(2, 4, 1).heads, 2);
  auto six = compileSource(*ctx90, packedDecode(4, "key_padding", 12), ws);
  ASSERT_TRUE(six.isOk()) << six.status().toString();
  EXPECT_EQ(six->kernels[0]->spec().packGroup, 1);
  EXPECT_FALSE(six->kernels[0]->flash()->packsQueryHeads(4));
  auto sixCpAsync = compileSource(*ctx, packedDecode(4, "key_padding", 12));
  ASSERT_TRUE(sixCpAsync.isOk()) << sixCpAsync.status().toString();
  EXPECT_EQ(sixCpAsync->kernels[0]->spec().packGroup, 6);
  // Beyond decode lengths, rows are queries.
  auto prefill = compileSource(*ctx, packedDecode(100, "causal, key_padding"));
  ASSERT_TRUE(prefill.isOk()) << prefill.status().toString();
  EXPECT_EQ(prefill->kernels[0]->spec().packGroup, 1);
}

TEST(BatchInvariant, SplitsAtFixedKeysWhateverTheBatch) {
  // The split count follows the keys alone (every 2048 keys, rounded up to
  // the key tile), at least 2 so that every sequence goes through the
  // merge; a larger split count only adds empty splits. No GPU needed.
  auto ctx = memoryContext();
  VarlenLaunch f(*ctx);
  FlashArgs a = f.args;
  a.batchInvariant = true;
  const int blockN = f.kernel->spec().blockN;
  const int keysPerSplit = (2048 + blockN - 1) / blockN * blockN;
  auto splits = f.kernel->splitsFor(a);
  ASSERT_TRUE(splits.isOk()) << splits.status().toString();
  EXPECT_EQ(*splits, 2); // 500 keys: one split of keys, one empty
  a.seqKV = 5 * keysPerSplit + 1;
  EXPECT_EQ(*f.kernel->splitsFor(a), 6);
  a.batch = 1; // fewer sequences: the same splits
  EXPECT_EQ(*f.kernel->splitsFor(a), 6);
  a.splits = 9;
  EXPECT_EQ(*f.kernel->splitsFor(a), 9);
  a = f.args;
  a.batchInvariant = true;
  EXPECT_TRUE(f.kernel->validate(a).isOk()) << f.kernel->validate(a).message();
  a.splits = FlashKernel::kMaxInvariantSplits + 1;
  EXPECT_NE(f.kernel->validate(a).message().find(
                "a batch-invariant launch takes at most 1024 splits"),
            std::string::npos);
}

} // namespace

//===----------------------------------------------------------------------===//
// The cache append (attn.with_kvcache's k=, v=): compiled for every arch
// with no spill, and its launch validated without a GPU.
//===----------------------------------------------------------------------===//

namespace {

/// Arguments a dense append of 3 tokens (rotary optional) validates with;
/// fake aligned addresses, no launch.
CacheAppendArgs appendArgs(bool rotary) {
  CacheAppendArgs a;
  a.batch = 2;
  a.newTokens = 3;
  a.headsQ = 8;
  a.headsKV = 2;
  auto *fake = reinterpret_cast<const void *>(uintptr_t(1) << 20);
  int64_t newShape[4] = {2, 3, 2, 128}, cacheShape[4] = {2, 512, 2, 128};
  a.kNew = a.vNew = TensorArg::contiguous(fake, newShape);
  a.kCache = a.vCache = TensorArg::contiguous(fake, cacheShape);
  a.capacity = 512;
  a.cacheSeqlens = static_cast<const int *>(fake);
  a.seqlensOut = const_cast<int *>(static_cast<const int *>(fake));
  if (rotary) {
    int64_t qShape[4] = {2, 3, 8, 128};
    a.q = a.qOut = TensorArg::contiguous(fake, qShape);
    a.seqQ = 3;
    a.cos = a.sin = static_cast<const float *>(fake);
    a.rotaryPositions = 512;
  }
  return a;
}

} // namespace

TEST(CacheAppend, CompilesEveryFormWithoutSpills) {
  for (const char *arch : {"sm_80", "sm_90a"}) {
    auto ctx = memoryContext(arch);
    for (auto [element, rotary, interleaved, paged] :
         {std::tuple<ElementType, int, bool, bool>{ElementType::BF16, 0, false, false},
          {ElementType::F16, 64, false, true},
          {ElementType::BF16, 128, true, false}}) {
      auto spec = Context::cacheAppendSpec(element, 128, 128, rotary, interleaved, paged);
      ASSERT_TRUE(spec.isOk()) << spec.status().toString();
      EXPECT_EQ(spec->kind, KernelKind::CacheAppend);
      auto kernel = ctx->build(*spec);
      ASSERT_TRUE(kernel.isOk()) << arch << " " << spec->name << ": "
                                 << kernel.status().toString();
      EXPECT_EQ((*kernel)->ptxas().spillStoreBytes, 0) << spec->name;
      EXPECT_EQ((*kernel)->ptxas().stackFrameBytes, 0) << spec->name;
    }
  }
  auto named = Context::cacheAppendSpec(ElementType::F16, 64, 32, 32, true, true);
  ASSERT_TRUE(named.isOk());
  EXPECT_EQ(named->name, "attn_cache_append_f16_hd64x32_rotary_interleaved32_paged");
}

TEST(CacheAppend, BadShapesAreErrors) {
  auto odd = Context::cacheAppendSpec(ElementType::BF16, 128, 128, 33, false, false);
  ASSERT_FALSE(odd.isOk());
  EXPECT_NE(odd.status().message().find("rotary dim must be even"), std::string::npos);
  auto wide = Context::cacheAppendSpec(ElementType::BF16, 64, 64, 128, false, false);
  EXPECT_FALSE(wide.isOk());
  auto f32 = Context::cacheAppendSpec(ElementType::F32, 64, 64, 0, false, false);
  ASSERT_FALSE(f32.isOk());
  EXPECT_NE(f32.status().message().find("f16 or bf16"), std::string::npos);
}

TEST(CacheAppend, ValidationNamesTheProblem) {
  auto ctx = memoryContext("sm_90a");
  auto dense = ctx->build(*Context::cacheAppendSpec(ElementType::BF16, 128, 128, 0, false, false));
  auto rotary = ctx->build(*Context::cacheAppendSpec(ElementType::BF16, 128, 128, 64, false, false));
  auto paged = ctx->build(*Context::cacheAppendSpec(ElementType::BF16, 128, 128, 0, false, true));
  ASSERT_TRUE(dense.isOk() && rotary.isOk() && paged.isOk());
  auto denseAppend = kernelAs<CacheAppendKernel>(*dense);
  auto rotaryAppend = kernelAs<CacheAppendKernel>(*rotary);
  auto pagedAppend = kernelAs<CacheAppendKernel>(*paged);
  ASSERT_TRUE(denseAppend && rotaryAppend && pagedAppend);
  EXPECT_TRUE(denseAppend->validate(appendArgs(false)).isOk());
  EXPECT_TRUE(rotaryAppend->validate(appendArgs(true)).isOk());
  auto expectError = [](const CacheAppendKernel &k, const CacheAppendArgs &a,
                        const std::string &text) {
    Status s = k.validate(a);
    ASSERT_FALSE(s.isOk()) << text;
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  };
  CacheAppendArgs a = appendArgs(false);
  a.capacity = 2;
  expectError(*denseAppend, a, "the cache holds 2 keys per sequence, fewer than the 3 new tokens");
  a = appendArgs(false);
  a.kNew.strides[3] = 2;
  expectError(*denseAppend, a, "'kNew' must be contiguous in dimension 3");
  a = appendArgs(false);
  a.seqlensOut = nullptr;
  expectError(*denseAppend, a, "'seqlensOut' is a null pointer");
  expectError(*pagedAppend, appendArgs(false), "paged cache but 'blockTable' is null");
  a = appendArgs(false);
  a.blockTable = a.cacheSeqlens;
  expectError(*denseAppend, a, "'blockTable' is given but the kernel appends to a dense cache");
  a.pageSize = 16;
  a.numPages = 4;
  a.capacity = 40;
  expectError(*pagedAppend, a, "a capacity of whole pages");
  a = appendArgs(true);
  a.rotaryPositions = 100;
  expectError(*rotaryAppend, a, "the rotary tables have 100 positions, fewer than the cache's 512 rows");
  a = appendArgs(true);
  a.sin = nullptr;
  expectError(*rotaryAppend, a, "'sin' is null");
  // Another kind's arguments do not launch it, nor the reverse.
  Status wrong = KernelGroup(*dense).validate(FlashArgs());
  EXPECT_NE(wrong.message().find("launch it with CacheAppendArgs"), std::string::npos)
      << wrong.message();
}
