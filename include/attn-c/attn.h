/*===- attn-c/attn.h - The attn C API -------------------------------------===*\
 *
 * A C interface over the C++ JIT API, for bindings (python/attn loads it with
 * ctypes). Functions return 0 on success or an attn_status code; the message
 * of the last failure on the calling thread is attn_last_error().
 *
\*===----------------------------------------------------------------------===*/

#ifndef ATTN_C_ATTN_H
#define ATTN_C_ATTN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTN_C_API __attribute__((visibility("default")))

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

/* The message of the last failure on this thread ("" if none). */
ATTN_C_API const char *attn_last_error(void);

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
ATTN_C_API int attn_launch(attn_kernel *kernel, const attn_flash_args *args,
                void *stream);
ATTN_C_API void attn_kernel_destroy(attn_kernel *kernel);

/* ---- Training: the backward of fused attention. ---- */

/* The operands of a backward launch: the forward's (q, k, v, its output o
 * and logsumexp lse), the output's gradient, the gradients to write (grad_k
 * and grad_v with the K/V head count) and the caller's workspace. */
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
  /* At least attn_backward_workspace_size() bytes, 256-byte aligned. */
  void *workspace;
  uint64_t workspace_bytes;
} attn_backward_args;

/* Compiles the training step of the single attention of an MLIR module
 * (graph or attn.flash): *forward (launched with attn_launch; it writes the
 * logsumexp, so give attn_flash_args.lse) and *backward (launched with
 * attn_launch_backward). bias_grad nonzero: the backward also computes the
 * bias gradient. */
ATTN_C_API int attn_compile_training(attn_context *context, const char *mlir,
                                     int32_t bias_grad, attn_kernel **forward,
                                     attn_kernel **backward);
/* The workspace a backward launch with `args` needs (its sizes and mode). */
ATTN_C_API int attn_backward_workspace_size(const attn_kernel *backward,
                                            const attn_backward_args *args,
                                            uint64_t *bytes);
/* Enqueues the backward on `stream` (no allocation, no synchronization). */
ATTN_C_API int attn_launch_backward(attn_kernel *backward,
                                    const attn_backward_args *args,
                                    void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ATTN_C_ATTN_H */
