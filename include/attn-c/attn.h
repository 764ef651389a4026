/*===- attn-c/attn.h - The attn C API -------------------------------------===*\
 *
 * A C interface over the C++ JIT API, for bindings (python/attn loads it with
 * ctypes). Functions return 0 on success or an attn_status code; the message
 * of the last failure on the calling thread is attn_last_error().
 *
 * Launches run in the CUDA context the caller names (attn_launch_config) or
 * in the calling thread's current one; the thread's current context is the
 * same afterwards. A launch never compiles, allocates or synchronizes: once
 * a kernel is loaded on a device (attn_kernel_load, or any launch there) and
 * given its workspace (attn_workspace_size), launches can be captured in a
 * CUDA graph.
 *
 * Link with -lattn_c (pkg-config attn, or CMake's attn::attn_c). The library
 * is libattn_c.so.ATTN_C_ABI_VERSION; bindings that load it at run time check
 * attn_abi_version() against the ATTN_C_ABI_VERSION they were written for.
 *
\*===----------------------------------------------------------------------===*/

#ifndef ATTN_C_ATTN_H
#define ATTN_C_ATTN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTN_C_API __attribute__((visibility("default")))

/* Bumped on every change of a struct layout or a function signature below,
 * and when functions are added that bindings call (also the library's
 * SOVERSION). 2: the training entry points (attn_backward_args,
 * attn_compile_training, attn_backward_workspace_size,
 * attn_launch_backward); attn_workspace_size is nonzero for persistent
 * kernels with a causal mask or a window. 3: attn_flash_args gains the
 * serving operands (cu_seqlens, block_table, sinks, batch invariance). 4:
 * attn_backward_args gains sinks and grad_sinks; the cache append
 * (attn_cache_append_args, attn_compile_cache_append,
 * attn_launch_cache_append). 5: attn_backward_args gains cu_seqlens_q and
 * cu_seqlens_k. 6: the writer of attn.flash text (attn_text_tensor,
 * attn_flash_op_text, attn_text_value, attn_write_flash_op,
 * attn_text_value_free), which the Python package calls. */
#define ATTN_C_ABI_VERSION 6

enum attn_status {
  ATTN_OK = 0,
  ATTN_INVALID_ARGUMENT = 1,
  ATTN_UNSUPPORTED = 2,
  ATTN_NO_DEVICE = 3,
  ATTN_COMPILE_ERROR = 4,
  ATTN_DRIVER_ERROR = 5,
  ATTN_IO_ERROR = 6,
  ATTN_PARSE_ERROR = 7,
};

/* Tensors one score_mod may read (attn_flash_args.score_mod_captures). */
#define ATTN_MAX_SCORE_MOD_CAPTURES 4

typedef struct attn_context attn_context;
typedef struct attn_kernel attn_kernel;

/* A device pointer and element strides in BHSD order; 0 to broadcast. */
typedef struct attn_tensor {
  const void *data;
  int64_t strides[4];
} attn_tensor;

typedef struct attn_flash_args {
  int32_t batch, seq_q, seq_kv;
  attn_tensor q, k, v, o;
  float *lse;              /* [batch, heads_q, seq_q], or NULL */
  const int32_t *lengths;  /* [batch], or NULL */
  attn_tensor keep;        /* uint8/bool, or data NULL */
  attn_tensor bias;        /* or data NULL */
  /* Split-KV blocks per query block: 0 lets the runtime choose (it splits
   * when the launch would not fill the GPU, as for decode), 1 never splits. */
  int32_t num_splits;
  /* --- score_mod captures (appended) ---
   * The tensors a score_mod reads, in the order of the op's `captures`:
   * contiguous device memory of the shapes and element types of the IR
   * (bool as one byte); NULL in the slots the kernel does not use. */
  const void *score_mod_captures[ATTN_MAX_SCORE_MOD_CAPTURES];
  /* --- ragged batches, sinks, paged caches (appended in ABI 3) ---
   * For a kernel compiled from an attn.flash with cu_seqlens: batch
   * sequences packed in q and o (seq_q tokens; strides[0] ignored) and in k
   * and v (seq_kv tokens); sequence b's queries are rows cu_seqlens_q[b] ..
   * cu_seqlens_q[b + 1], its keys likewise (batch + 1 int32 offsets each,
   * device memory, clamped to the tensors by the kernel); lse is
   * [heads_q, seq_q]. max_seqlen_q / max_seqlen_k: the longest sequence's
   * lengths, or 0 if unknown (they only guide split-KV). NULL and 0 for a
   * dense batch. */
  const int32_t *cu_seqlens_q, *cu_seqlens_k;
  int32_t max_seqlen_q, max_seqlen_k;
  /* Attention sinks, for a kernel compiled from an attn.flash with sinks:
   * one float logit per query head (heads_q floats, device memory); NULL
   * otherwise. */
  const float *sinks;
  /* Paged K/V caches, for a kernel compiled from an attn.flash with a
   * block_table: k and v are caches of num_pages pages of page_size keys,
   * [num_pages, heads_kv, page_size, dim] in BHSD strides (a page as the
   * batch; flash_attn's (num_pages, page_size, heads_kv, dim) memory with
   * its strides permuted); sequence b's key n is row n % page_size of page
   * block_table[b * block_table_stride + n / page_size] (int32, device
   * memory, each entry clamped to the cache by the kernel); seq_kv is the
   * pages per sequence times page_size and lengths the valid keys
   * (cache_seqlens). NULL and 0 otherwise. */
  const int32_t *block_table;
  int64_t block_table_stride;
  int32_t num_pages, page_size;
  /* Nonzero: batch-invariant results (FlashArgs::batchInvariant): each
   * sequence's keys split at fixed positions and always merged in order, so
   * its output is bitwise the same whatever else is in the batch and
   * however many splits the launch has. */
  int32_t batch_invariant;
} attn_flash_args;

typedef struct attn_kernel_info {
  char name[128];
  char variant[16];
  char arch[16];
  int32_t threads, shared_bytes, block_m, block_n, num_warps, stages;
  int32_t registers, spill_bytes, stack_bytes;
  int32_t cache_outcome; /* 0 miss, 1 memory hit, 2 disk hit */
  double build_ms;
  int32_t heads_q, heads_kv, head_dim_qk, head_dim_v;
  int32_t writes_lse;
} attn_kernel_info;

/* Where a launch runs and with what memory. */
typedef struct attn_launch_config {
  /* A CUcontext of the caller's, or NULL; wins over device. */
  void *context;
  /* >= 0: that device's primary context (the CUDA runtime's and PyTorch's);
   * -1: the calling thread's current context, or where it has none, the
   * primary context of $ATTN_DEVICE (0 if unset). */
  int32_t device;
  /* A CUstream / cudaStream_t of that context; NULL: its default stream. */
  void *stream;
  /* Device memory of at least attn_workspace_size() bytes, used until the
   * launch completes; NULL when that size is 0. */
  void *workspace;
  uint64_t workspace_bytes;
} attn_launch_config;

/* The message of the last failure on this thread ("" if none). */
ATTN_C_API const char *attn_last_error(void);

/* The library's version ("0.3.0") and its ATTN_C_ABI_VERSION. */
ATTN_C_API const char *attn_version(void);
ATTN_C_API int32_t attn_abi_version(void);

/* The compiler's limits, for bindings that must agree with them: static
 * query lengths up to attn_max_decode_queries() (16) are decode, their
 * tiles picked by the memory model, so each such length is worth a kernel
 * of its own; attn_max_score_mod_captures() is ATTN_MAX_SCORE_MOD_CAPTURES
 * of this header. (Added within ABI 3: callers of ABI 3 without them are
 * unaffected.) */
ATTN_C_API int32_t attn_max_decode_queries(void);
ATTN_C_API int32_t attn_max_score_mod_captures(void);

/* Receives every log message (each compile: kernel, milliseconds, cache
 * outcome; module loads; notes), besides stderr when $ATTN_LOG is set. NULL
 * clears it. */
typedef void (*attn_log_handler)(const char *message, void *user);
ATTN_C_API void attn_set_log_handler(attn_log_handler handler, void *user);

/* arch: "sm_90a" etc., or NULL for the GPU's (sm_90a without one).
 * cache_dir: NULL for $ATTN_CACHE_DIR or ~/.cache/attn, "" for memory only. */
ATTN_C_API int attn_context_create(const char *arch, const char *cache_dir,
                        attn_context **out);
ATTN_C_API void attn_context_destroy(attn_context *context);

/* Compiles the single attention of an MLIR module (graph or attn.flash).
 * variant: "sm80" or "sm90", or NULL/"" for the cost model's choice; tile
 * overrides of 0 leave the cost model's choice. */
ATTN_C_API int attn_compile(attn_context *context, const char *mlir,
                            const char *variant, int32_t block_m,
                            int32_t block_n, int32_t num_warps, int32_t stages,
                            attn_kernel **out);
ATTN_C_API int attn_kernel_get_info(const attn_kernel *kernel, attn_kernel_info *info);
/* The CUDA C++ source the kernel was compiled from (owned by the kernel). */
ATTN_C_API const char *attn_kernel_source(const attn_kernel *kernel);
/* Loads the kernel into the context `where` names (NULL: as device -1; its
 * stream and workspace are ignored): do it before capturing a CUDA graph. */
ATTN_C_API int attn_kernel_load(attn_kernel *kernel,
                                const attn_launch_config *where);
/* Bytes of workspace a launch with `args` and `config` needs (0 unless the
 * launch splits the keys, as decode does, or a persistent kernel with a
 * causal mask or a window draws its tiles from a counter there). Loads the
 * kernel if needed. */
ATTN_C_API int attn_workspace_size(attn_kernel *kernel,
                                   const attn_flash_args *args,
                                   const attn_launch_config *config,
                                   uint64_t *bytes);
/* Checks every pointer (memory of the launch's device) and enqueues. */
ATTN_C_API int attn_launch_on(attn_kernel *kernel, const attn_flash_args *args,
                              const attn_launch_config *config);
/* attn_launch_on with device -1, `stream` and no workspace. */
ATTN_C_API int attn_launch(attn_kernel *kernel, const attn_flash_args *args,
                           void *stream);
ATTN_C_API void attn_kernel_destroy(attn_kernel *kernel);

/* ---- Training: the backward of fused attention (appended). ---- */

/* The operands of a backward launch: the forward's (q, k, v, its output o
 * and logsumexp lse), the output's gradient and the gradients to write
 * (grad_k and grad_v with the K/V head count). The workspace comes with the
 * launch's attn_launch_config, as for a forward launch. */
typedef struct attn_backward_args {
  int32_t batch, seq_q, seq_kv;
  attn_tensor q, k, v, o, grad_output;
  const float *lse;        /* [batch, heads_q, seq_q], as the forward wrote it */
  attn_tensor grad_q, grad_k, grad_v;
  const int32_t *lengths;  /* [batch], or NULL */
  attn_tensor keep;        /* uint8/bool, or data NULL */
  attn_tensor bias;        /* or data NULL */
  /* With the bias gradient: the bias's extents (1 where its stride is 0,
   * summed there), in the bias's element type. */
  attn_tensor grad_bias;
  /* Nonzero: no atomics, bitwise identical results run to run. */
  int32_t deterministic;
  /* The tensors the score_mod reads, as attn_flash_args.score_mod_captures. */
  const void *score_mod_captures[ATTN_MAX_SCORE_MOD_CAPTURES];
  /* The backward of an attention with sinks computes their gradient: the
   * forward's sinks and the gradient to write, [heads_q] float32 each
   * (both NULL otherwise). */
  const float *sinks;
  float *grad_sinks;
  /* (Appended in ABI 5.) The backward of a ragged attention (cu_seqlens):
   * the forward's batch + 1
   * offsets of the queries and the keys, int32 in device memory; the
   * tensors packed as attn_flash_args has them (strides[0] ignored), lse
   * [heads_q, seq_q]. Rows of no sequence are not written. NULL for a dense
   * batch. */
  const int32_t *cu_seqlens_q, *cu_seqlens_k;
} attn_backward_args;

/* Compiles the training step of the single attention of an MLIR module
 * (graph or attn.flash): *forward (launched with attn_launch_on; it writes
 * the logsumexp, so give attn_flash_args.lse) and *backward (launched with
 * attn_launch_backward). bias_grad nonzero: the backward also computes the
 * bias gradient. An attention with sinks gets their gradient too. */
ATTN_C_API int attn_compile_training(attn_context *context, const char *mlir,
                                     int32_t bias_grad, attn_kernel **forward,
                                     attn_kernel **backward);
/* The workspace a backward launch with `args` needs (from its sizes and
 * mode; no GPU needed): always some, 256-byte aligned. */
ATTN_C_API int attn_backward_workspace_size(const attn_kernel *backward,
                                            const attn_backward_args *args,
                                            uint64_t *bytes);
/* Checks every pointer (memory of the launch's device) and enqueues the
 * backward's kernels in the context and on the stream `config` names, with
 * its workspace (no allocation, no synchronization). */
ATTN_C_API int attn_launch_backward(attn_kernel *backward,
                                    const attn_backward_args *args,
                                    const attn_launch_config *config);

/* ---- Serving: appending a decode step to a KV cache. ---- */

/* One launch writes each sequence's new_tokens keys and values into its
 * cache rows cache_seqlens[b] .. + new_tokens (rows past `capacity` are not
 * written), rotating the first rotary_dim dims of k (and of q, into q_out)
 * by the rotary angles of their positions, and writes seqlens_out[b] =
 * cache_seqlens[b] + new_tokens: the lengths the attention over the cache
 * then reads (flash_attn_with_kvcache with k and v). Tensors as (batch or
 * page, row, head, dim) strides, the last contiguous. */
typedef struct attn_cache_append_args {
  int32_t batch, new_tokens, heads_q, heads_kv;
  attn_tensor k_new, v_new;     /* (batch, new_tokens, heads_kv, dim) */
  /* Dense (batch, capacity, heads_kv, dim); paged (num_pages, page_size,
   * heads_kv, dim), sequence b's rows in pages block_table[b, 0], ... */
  attn_tensor k_cache, v_cache;
  int32_t capacity;             /* rows per sequence (paged: pages x page_size) */
  const int32_t *cache_seqlens; /* (batch) keys before the append */
  int32_t *seqlens_out;         /* (batch), written */
  const int32_t *block_table;   /* paged: (batch, pages per sequence); else NULL */
  int64_t block_table_stride;
  int32_t page_size, num_pages;
  /* Rotary: cos, sin (rotary_positions >= capacity, rotary_dim / 2) float32;
   * q (batch, seq_q, heads_q, dim) is read and q_out written rotated, at
   * positions cache_seqlens[b] + t if q_at_each_position (causal or
   * windowed attention), else all at cache_seqlens[b]. */
  const float *rotary_cos, *rotary_sin;
  int32_t rotary_positions;
  int32_t seq_q;
  attn_tensor q, q_out;
  int32_t q_at_each_position;
} attn_cache_append_args;

/* Compiles the cache append of `element` ("f16" or "bf16") caches with head
 * dims head_dim (k, q) and head_dim_v (v), dense or paged, rotating
 * rotary_dim dims (0: none; even, at most head_dim) in adjacent pairs if
 * rotary_interleaved, else in halves. */
ATTN_C_API int attn_compile_cache_append(attn_context *context,
                                         const char *element, int32_t head_dim,
                                         int32_t head_dim_v, int32_t rotary_dim,
                                         int32_t rotary_interleaved,
                                         int32_t paged, attn_kernel **kernel);
/* Checks every pointer and enqueues the append on the stream `config`
 * names (no workspace, no synchronization). */
ATTN_C_API int attn_launch_cache_append(attn_kernel *kernel,
                                        const attn_cache_append_args *args,
                                        const attn_launch_config *config);

/* ---- Writing attn.flash text (ABI 6). ---- */

/* The extent of a dimension known only at launch: '?' in the type. */
#define ATTN_DYNAMIC_EXTENT (-1)

/* A tensor operand of an attn.flash: its SSA name without '%' (NULL or "":
 * the operand's default, below), its element type as the dialect spells it
 * ("f16", "bf16", "f32", "i32", "i64" or "i1"; NULL: the op has no such
 * operand, which q, k and v must not be) and its rank extents
 * (ATTN_DYNAMIC_EXTENT for '?'). */
typedef struct attn_text_tensor {
  const char *name;
  const char *element;
  const int64_t *shape;
  int32_t rank;
} attn_text_tensor;

/* One attn.flash (C++: attn::FlashOpText, attn/API/FlashOpText.h). The
 * optional operands add their mask items: lengths key_padding, keep keep,
 * bias bias. Default names: q, k, v, len, keep, bias, captured0..,
 * cq, ck, sinks, table; results o and lse. */
typedef struct attn_flash_op_text {
  /* A func.func of this name with the operands as arguments (q, k, v,
   * cu_seqlens_q, cu_seqlens_k, lengths, keep, bias, captures, sinks,
   * block_table) returning the results; NULL or "": the op statement
   * alone (no indentation, no newline). */
  const char *function;
  /* Dense [B, Hq, Sq, Dqk], [B, Hkv, Skv, Dqk] (transpose_k: [B, Hkv, Dqk,
   * Skv]), [B, Hkv, Skv, Dv]; with cu_seqlens packed [T, H, D]; with a
   * block_table k and v are pages. The output has q's element type. */
  attn_text_tensor q, k, v;
  attn_text_tensor lengths, keep, bias;
  /* The tensors the score_mod reads (its block arguments %capture0..). */
  const attn_text_tensor *captures;
  int32_t num_captures;
  attn_text_tensor cu_seqlens_q, cu_seqlens_k, sinks, block_table;
  /* Written as the shortest decimal that reads back as this double. */
  double scale;
  int32_t causal;
  /* Nonzero: window = [window_left, window_right] (-1 unbounded). */
  int32_t has_window;
  int64_t window_left, window_right;
  int32_t bottom_right;
  int32_t transpose_k;
  /* The score_mod region's body over %score, %b, %h, %q_idx, %kv_idx and
   * the captures, ending in attn.yield (each line indented by four
   * spaces); NULL or "": none. */
  const char *score_mod;
  /* Nonzero: also the logsumexp, [B, Hq, Sq] f32 (packed: [Hq, Tq]). */
  int32_t return_lse;
  const char *output_name, *lse_name; /* NULL: "o", "lse" */
} attn_flash_op_text;

/* Text the library allocated: size bytes and a NUL after them; freed with
 * attn_text_value_free. */
typedef struct attn_text_value {
  char *data;
  uint64_t size;
} attn_text_value;

/* Writes `op` as MLIR text into *text (the one writer of attn.flash: the
 * C++ Graph API and the Python package use it too). ATTN_INVALID_ARGUMENT,
 * with *text empty and attn_last_error() naming the field, where the text
 * could not be read back (a bad name, element type or extent, one
 * cu_seqlens without the other, captures without a score_mod, a scale that
 * is not finite). What the op means is checked when it is compiled. */
ATTN_C_API int attn_write_flash_op(const attn_flash_op_text *op,
                                   attn_text_value *text);
/* Frees text->data (NULL is fine) and empties *text. */
ATTN_C_API void attn_text_value_free(attn_text_value *text);

#ifdef __cplusplus
}
#endif

#endif /* ATTN_C_ATTN_H */
