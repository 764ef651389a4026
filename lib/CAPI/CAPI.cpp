//===- CAPI.cpp - The attn C API ------------------------------------------===//

#include "attn-c/attn.h"
#include "attn/Runtime/Log.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Version.h"
#include "attn/attn.h"

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>

static_assert(ATTN_MAX_SCORE_MOD_CAPTURES == attn::kMaxScoreModCaptures,
              "the C API and the runtime disagree on score_mod captures");

namespace {

thread_local std::string lastError;

int report(const attn::Status &status) {
  lastError = status.toString();
  return static_cast<int>(status.code());
}

int invalid(const char *message) {
  return report(attn::Status(attn::StatusCode::InvalidArgument, message));
}

attn::TensorArg toArg(const attn_tensor &t) {
  attn::TensorArg a;
  a.data = t.data;
  std::memcpy(a.strides, t.strides, sizeof(a.strides));
  return a;
}

attn::Device deviceOf(const attn_launch_config *config) {
  if (!config)
    return attn::Device::current();
  attn::Device device;
  device.context = config->context;
  device.ordinal = config->device;
  return device;
}

attn::FlashArgs toFlashArgs(const attn_flash_args *args,
                            const attn_launch_config *config) {
  attn::FlashArgs a;
  a.batch = args->batch;
  a.seqQ = args->seq_q;
  a.seqKV = args->seq_kv;
  a.q = toArg(args->q);
  a.k = toArg(args->k);
  a.v = toArg(args->v);
  a.o = toArg(args->o);
  a.lse = args->lse;
  a.lengths = args->lengths;
  a.keep = toArg(args->keep);
  a.bias = toArg(args->bias);
  a.splits = args->num_splits;
  for (int i = 0; i < ATTN_MAX_SCORE_MOD_CAPTURES; ++i)
    a.scoreModCaptures[i] = args->score_mod_captures[i];
  a.cuSeqlensQ = args->cu_seqlens_q;
  a.cuSeqlensK = args->cu_seqlens_k;
  a.maxSeqlenQ = args->max_seqlen_q;
  a.maxSeqlenK = args->max_seqlen_k;
  a.sinks = args->sinks;
  a.blockTable = args->block_table;
  a.blockTableStride = args->block_table_stride;
  a.numPages = args->num_pages;
  a.pageSize = args->page_size;
  a.batchInvariant = args->batch_invariant != 0;
  if (config) {
    a.workspace = reinterpret_cast<attn::DevicePtr>(config->workspace);
    a.workspaceBytes = config->workspace_bytes;
  }
  return a;
}

/// The element type the dialect spells `name`.
std::optional<attn::ElementType> elementTypeNamed(const char *name) {
  using attn::ElementType;
  for (ElementType type : {ElementType::F16, ElementType::BF16,
                           ElementType::F32, ElementType::I32,
                           ElementType::I64, ElementType::Bool})
    if (std::strcmp(name, attn::elementTypeName(type)) == 0)
      return type;
  return std::nullopt;
}

/// A rank no attention operand comes near: beyond it `shape` is more likely
/// garbage than extents.
constexpr int32_t kMaxTextRank = 8;

/// `t` as writeFlashOp's operand, or the status that says why it is none.
attn::Status toOperandText(const std::string &role, const attn_text_tensor &t,
                           attn::FlashOperandText &out) {
  auto fail = [&](const std::string &message) {
    return attn::Status(attn::StatusCode::InvalidArgument,
                        "attn_write_flash_op: " + role + " " + message);
  };
  if (!t.element)
    return fail("has no element type (NULL)");
  std::optional<attn::ElementType> element = elementTypeNamed(t.element);
  if (!element)
    return fail(std::string("has element type \"") + t.element +
                "\"; expected f16, bf16, f32, i32, i64 or i1");
  if (t.rank < 0 || t.rank > kMaxTextRank)
    return fail("has rank " + std::to_string(t.rank) + "; expected 0 to " +
                std::to_string(kMaxTextRank));
  if (t.rank > 0 && !t.shape)
    return fail("has rank " + std::to_string(t.rank) + " but no shape (NULL)");
  out.name = t.name ? t.name : "";
  out.element = *element;
  out.shape.assign(t.shape, t.shape + t.rank);
  return attn::Status::ok();
}

/// toOperandText of an optional operand: none where `t` has no element.
attn::Status toOptionalText(const std::string &role, const attn_text_tensor &t,
                            std::optional<attn::FlashOperandText> &out) {
  if (!t.element)
    return attn::Status::ok();
  out.emplace();
  return toOperandText(role, t, *out);
}

/// writeFlashOp's description of `op`.
attn::Status toFlashOpText(const attn_flash_op_text &op,
                           attn::FlashOpText &d) {
  auto fail = [](const std::string &message) {
    return attn::Status(attn::StatusCode::InvalidArgument,
                        "attn_write_flash_op: " + message);
  };
  d.function = op.function ? op.function : "";
  for (auto [role, t, out] :
       {std::tuple{"q", &op.q, &d.q}, std::tuple{"k", &op.k, &d.k},
        std::tuple{"v", &op.v, &d.v}})
    if (attn::Status s = toOperandText(role, *t, *out); !s)
      return s;
  for (auto [role, t, out] :
       {std::tuple{"lengths", &op.lengths, &d.lengths},
        std::tuple{"keep", &op.keep, &d.keep},
        std::tuple{"bias", &op.bias, &d.bias},
        std::tuple{"cu_seqlens_q", &op.cu_seqlens_q, &d.cuSeqlensQ},
        std::tuple{"cu_seqlens_k", &op.cu_seqlens_k, &d.cuSeqlensK},
        std::tuple{"sinks", &op.sinks, &d.sinks},
        std::tuple{"block_table", &op.block_table, &d.blockTable}})
    if (attn::Status s = toOptionalText(role, *t, *out); !s)
      return s;
  if (op.num_captures < 0 || (op.num_captures > 0 && !op.captures))
    return fail("num_captures is " + std::to_string(op.num_captures) +
                (op.num_captures < 0 ? "; expected >= 0"
                                     : " but captures is NULL"));
  d.captures.resize(op.num_captures);
  for (int32_t i = 0; i < op.num_captures; ++i) {
    if (attn::Status s = toOperandText("capture " + std::to_string(i),
                                       op.captures[i], d.captures[i]);
        !s)
      return s;
  }
  d.scale = op.scale;
  d.causal = op.causal != 0;
  if (op.has_window)
    d.window = {op.window_left, op.window_right};
  d.bottomRight = op.bottom_right != 0;
  d.transposeK = op.transpose_k != 0;
  d.scoreMod = op.score_mod ? op.score_mod : "";
  d.returnLse = op.return_lse != 0;
  if (op.output_name)
    d.outputName = op.output_name;
  if (op.lse_name)
    d.lseName = op.lse_name;
  return attn::Status::ok();
}

} // namespace

struct attn_context {
  std::unique_ptr<attn::Context> context;
};

/// What one op compiled to: its group of kernels (a cache append's has
/// one).
struct attn_kernel {
  std::shared_ptr<attn::KernelGroup> group;
};

extern "C" {

const char *attn_last_error(void) { return lastError.c_str(); }

const char *attn_version(void) { return ATTN_VERSION; }

int32_t attn_abi_version(void) { return ATTN_C_ABI_VERSION; }

int32_t attn_max_decode_queries(void) { return attn::kMaxPackedTokens; }

int32_t attn_max_score_mod_captures(void) { return ATTN_MAX_SCORE_MOD_CAPTURES; }

void attn_set_log_handler(attn_log_handler handler, void *user) {
  attn::setLogHandler(handler, user);
}

int attn_context_create(const char *arch, const char *cacheDir,
                        attn_context **out) {
  if (!out)
    return invalid("attn_context_create: 'out' is NULL");
  attn::Context::Options options;
  if (arch)
    options.arch = arch;
  if (cacheDir) {
    options.cacheDirectory = cacheDir;
    options.diskCache = *cacheDir != '\0';
  }
  auto context = attn::Context::create(options);
  if (!context)
    return report(context.status());
  *out = new attn_context{std::move(*context)};
  return ATTN_OK;
}

void attn_context_destroy(attn_context *context) { delete context; }

int attn_compile(attn_context *context, const char *mlir, const char *variant,
                 int32_t blockM, int32_t blockN, int32_t numWarps,
                 int32_t stages, attn_kernel **out) {
  if (!context || !mlir || !out)
    return invalid("attn_compile: NULL argument");
  attn::CompileOptions options;
  options.variant = variant ? variant : "";
  options.blockM = blockM;
  options.blockN = blockN;
  options.numWarps = numWarps;
  options.stages = stages;
  auto compiled = attn::compileSource(*context->context, mlir, options);
  if (!compiled)
    return report(compiled.status());
  if (compiled->kernels.size() != 1)
    return report(attn::Status(
        attn::StatusCode::Unsupported,
        "attn_compile: the module has " +
            std::to_string(compiled->kernels.size()) +
            " attention kernels; the C API compiles modules with one"));
  if (compiled->kernels.front()->spec().kind != attn::KernelKind::Flash)
    return report(attn::Status(
        attn::StatusCode::Unsupported,
        "attn_compile: the module holds an attn.kernel (one graph op of the "
        "unfused path); the C API launches fused attention only"));
  *out = new attn_kernel{compiled->kernels.front()};
  return ATTN_OK;
}

int attn_kernel_get_info(const attn_kernel *kernel, attn_kernel_info *info) {
  if (!kernel || !info)
    return invalid("attn_kernel_get_info: NULL argument");
  const attn::Kernel &k = kernel->group->primary();
  const attn::KernelSpec &s = k.spec();
  std::memset(info, 0, sizeof(*info));
  std::strncpy(info->name, s.name.c_str(), sizeof(info->name) - 1);
  std::strncpy(info->variant, s.variant.c_str(), sizeof(info->variant) - 1);
  std::strncpy(info->arch, k.arch().c_str(), sizeof(info->arch) - 1);
  info->threads = s.threads;
  info->shared_bytes = s.sharedBytes;
  info->block_m = s.blockM;
  info->block_n = s.blockN;
  info->num_warps = s.numWarps;
  info->stages = s.stages;
  // 0 where neither the compile log nor a GPU gives the count.
  auto registers = const_cast<attn::Kernel &>(k).registers();
  info->registers = registers ? *registers : 0;
  info->spill_bytes = k.ptxas().spillStoreBytes + k.ptxas().spillLoadBytes;
  info->stack_bytes = k.ptxas().stackFrameBytes;
  info->cache_outcome = static_cast<int32_t>(k.cacheOutcome());
  info->build_ms = k.buildMs();
  info->heads_q = s.headsQ;
  info->heads_kv = s.headsKV;
  info->head_dim_qk = s.headDimQK;
  info->head_dim_v = s.headDimV;
  info->writes_lse = s.writesLse;
  return ATTN_OK;
}

const char *attn_kernel_source(const attn_kernel *kernel) {
  return kernel ? kernel->group->spec().source.c_str() : "";
}

int attn_kernel_load(attn_kernel *kernel, const attn_launch_config *where) {
  if (!kernel)
    return invalid("attn_kernel_load: 'kernel' is NULL");
  attn::Status s = kernel->group->load(deviceOf(where));
  return s ? ATTN_OK : report(s);
}

int attn_workspace_size(attn_kernel *kernel, const attn_flash_args *args,
                        const attn_launch_config *config, uint64_t *bytes) {
  if (!kernel || !args || !bytes)
    return invalid("attn_workspace_size: NULL argument");
  auto size = kernel->group->workspaceBytes(
      toFlashArgs(args, config), config ? config->stream : nullptr,
      deviceOf(config));
  if (!size)
    return report(size.status());
  *bytes = *size;
  return ATTN_OK;
}

int attn_launch_on(attn_kernel *kernel, const attn_flash_args *args,
                   const attn_launch_config *config) {
  if (!kernel || !args)
    return invalid("attn_launch_on: NULL argument");
  attn::Status s = kernel->group->launch(toFlashArgs(args, config),
                                         config ? config->stream : nullptr,
                                         deviceOf(config));
  return s ? ATTN_OK : report(s);
}

int attn_launch(attn_kernel *kernel, const attn_flash_args *args,
                void *stream) {
  attn_launch_config config = {};
  config.device = -1;
  config.stream = stream;
  return attn_launch_on(kernel, args, &config);
}

void attn_kernel_destroy(attn_kernel *kernel) { delete kernel; }

int attn_compile_training(attn_context *context, const char *mlir,
                          int32_t biasGrad, attn_kernel **forward,
                          attn_kernel **backward) {
  if (!context || !mlir || !forward || !backward)
    return invalid("attn_compile_training: NULL argument");
  attn::CompileOptions options;
  options.backward = true;
  options.backwardBiasGrad = biasGrad != 0;
  auto compiled = attn::compileSource(*context->context, mlir, options);
  if (!compiled)
    return report(compiled.status());
  const auto &kernels = compiled->kernels;
  if (kernels.size() != 2 || kernels[0]->spec().kind != attn::KernelKind::Flash ||
      kernels[1]->spec().kind != attn::KernelKind::FlashBackward)
    return report(attn::Status(
        attn::StatusCode::Unsupported,
        "attn_compile_training: the module has " +
            std::to_string(kernels.size()) +
            " kernels; the C API compiles the training step of one attention"));
  *forward = new attn_kernel{kernels[0]};
  *backward = new attn_kernel{kernels[1]};
  return ATTN_OK;
}

namespace {

attn::BackwardArgs toBackwardArgs(const attn_backward_args &args,
                                  const attn_launch_config *config) {
  attn::BackwardArgs a;
  a.batch = args.batch;
  a.seqQ = args.seq_q;
  a.seqKV = args.seq_kv;
  a.q = toArg(args.q);
  a.k = toArg(args.k);
  a.v = toArg(args.v);
  a.o = toArg(args.o);
  a.gradOutput = toArg(args.grad_output);
  a.lse = args.lse;
  a.gradQ = toArg(args.grad_q);
  a.gradK = toArg(args.grad_k);
  a.gradV = toArg(args.grad_v);
  a.lengths = args.lengths;
  a.keep = toArg(args.keep);
  a.bias = toArg(args.bias);
  a.gradBias = toArg(args.grad_bias);
  a.sinks = args.sinks;
  a.gradSinks = args.grad_sinks;
  a.cuSeqlensQ = args.cu_seqlens_q;
  a.cuSeqlensK = args.cu_seqlens_k;
  a.deterministic = args.deterministic != 0;
  for (int i = 0; i < ATTN_MAX_SCORE_MOD_CAPTURES; ++i)
    a.scoreModCaptures[i] = args.score_mod_captures[i];
  if (config) {
    a.workspace = reinterpret_cast<attn::DevicePtr>(config->workspace);
    a.workspaceBytes = config->workspace_bytes;
  }
  return a;
}

} // namespace

int attn_backward_workspace_size(const attn_kernel *backward,
                                 const attn_backward_args *args,
                                 uint64_t *bytes) {
  if (!backward || !args || !bytes)
    return invalid("attn_backward_workspace_size: NULL argument");
  auto size = backward->group->workspaceBytes(toBackwardArgs(*args, nullptr));
  if (!size)
    return report(size.status());
  *bytes = *size;
  return ATTN_OK;
}

int attn_launch_backward(attn_kernel *backward, const attn_backward_args *args,
                         const attn_launch_config *config) {
  if (!backward || !args)
    return invalid("attn_launch_backward: NULL argument");
  attn::Status s = backward->group->launch(toBackwardArgs(*args, config),
                                           config ? config->stream : nullptr,
                                           deviceOf(config));
  return s ? ATTN_OK : report(s);
}

int attn_compile_cache_append(attn_context *context, const char *element,
                              int32_t head_dim, int32_t head_dim_v,
                              int32_t rotary_dim, int32_t rotary_interleaved,
                              int32_t paged, attn_kernel **kernel) {
  if (!context || !element || !kernel)
    return invalid("attn_compile_cache_append: NULL argument");
  *kernel = nullptr;
  attn::ElementType type;
  if (std::strcmp(element, "f16") == 0)
    type = attn::ElementType::F16;
  else if (std::strcmp(element, "bf16") == 0)
    type = attn::ElementType::BF16;
  else
    return invalid((std::string("attn_compile_cache_append: element must be "
                                "\"f16\" or \"bf16\", got \"") +
                    element + "\"")
                       .c_str());
  auto spec = attn::Context::cacheAppendSpec(type, head_dim, head_dim_v,
                                             rotary_dim, rotary_interleaved != 0,
                                             paged != 0);
  if (!spec)
    return report(spec.status());
  auto built = context->context->build(*spec);
  if (!built)
    return report(built.status());
  *kernel = new attn_kernel{std::make_shared<attn::KernelGroup>(*built)};
  return ATTN_OK;
}

int attn_launch_cache_append(attn_kernel *kernel,
                             const attn_cache_append_args *args,
                             const attn_launch_config *config) {
  if (!kernel || !args)
    return invalid("attn_launch_cache_append: NULL argument");
  attn::CacheAppendArgs a;
  a.batch = args->batch;
  a.newTokens = args->new_tokens;
  a.headsQ = args->heads_q;
  a.headsKV = args->heads_kv;
  a.kNew = toArg(args->k_new);
  a.vNew = toArg(args->v_new);
  a.kCache = toArg(args->k_cache);
  a.vCache = toArg(args->v_cache);
  a.capacity = args->capacity;
  a.cacheSeqlens = args->cache_seqlens;
  a.seqlensOut = args->seqlens_out;
  a.blockTable = args->block_table;
  a.blockTableStride = args->block_table_stride;
  a.pageSize = args->page_size;
  a.numPages = args->num_pages;
  a.cos = args->rotary_cos;
  a.sin = args->rotary_sin;
  a.rotaryPositions = args->rotary_positions;
  a.seqQ = args->seq_q;
  a.q = toArg(args->q);
  a.qOut = toArg(args->q_out);
  a.qAtEachPosition = args->q_at_each_position != 0;
  auto *append = kernel->group->primary().as<attn::CacheAppendKernel>();
  if (!append)
    return report(kernel->group->primary().wrongKind("attn_cache_append_args"));
  attn::Status s =
      append->launch(a, config ? config->stream : nullptr, deviceOf(config));
  return s ? ATTN_OK : report(s);
}

int attn_write_flash_op(const attn_flash_op_text *op, attn_text_value *text) {
  if (!text)
    return invalid("attn_write_flash_op: 'text' is NULL");
  *text = attn_text_value{nullptr, 0};
  if (!op)
    return invalid("attn_write_flash_op: 'op' is NULL");
  attn::FlashOpText description;
  if (attn::Status s = toFlashOpText(*op, description); !s)
    return report(s);
  attn::Result<std::string> written = attn::writeFlashOp(description);
  if (!written)
    return report(attn::Status(written.status().code(),
                               "attn_write_flash_op: " +
                                   written.status().message()));
  char *data = static_cast<char *>(std::malloc(written->size() + 1));
  if (!data)
    return invalid("attn_write_flash_op: out of memory");
  std::memcpy(data, written->c_str(), written->size() + 1);
  *text = attn_text_value{data, written->size()};
  return ATTN_OK;
}

void attn_text_value_free(attn_text_value *text) {
  if (!text)
    return;
  std::free(text->data);
  *text = attn_text_value{nullptr, 0};
}

} // extern "C"
