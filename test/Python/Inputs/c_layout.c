/* Prints the size of each struct of attn-c/attn.h and the offset of each of
 * its fields, in the format of python_layout.py. */
#include "attn-c/attn.h"

#include <stddef.h>
#include <stdio.h>

#define SIZE(type) printf("%s size %zu\n", #type, sizeof(type))
#define FIELD(type, field)                                                    \
  printf("%s.%s %zu\n", #type, #field, offsetof(type, field))

int main(void) {
  SIZE(attn_tensor);
  FIELD(attn_tensor, data);
  FIELD(attn_tensor, strides);
  SIZE(attn_flash_args);
  FIELD(attn_flash_args, batch);
  FIELD(attn_flash_args, seq_q);
  FIELD(attn_flash_args, seq_kv);
  FIELD(attn_flash_args, q);
  FIELD(attn_flash_args, k);
  FIELD(attn_flash_args, v);
  FIELD(attn_flash_args, o);
  FIELD(attn_flash_args, lse);
  FIELD(attn_flash_args, lengths);
  FIELD(attn_flash_args, keep);
  FIELD(attn_flash_args, bias);
  FIELD(attn_flash_args, num_splits);
  FIELD(attn_flash_args, score_mod_captures);
  FIELD(attn_flash_args, cu_seqlens_q);
  FIELD(attn_flash_args, cu_seqlens_k);
  FIELD(attn_flash_args, max_seqlen_q);
  FIELD(attn_flash_args, max_seqlen_k);
  FIELD(attn_flash_args, sinks);
  FIELD(attn_flash_args, block_table);
  FIELD(attn_flash_args, block_table_stride);
  FIELD(attn_flash_args, num_pages);
  FIELD(attn_flash_args, page_size);
  FIELD(attn_flash_args, batch_invariant);
  SIZE(attn_backward_args);
  FIELD(attn_backward_args, batch);
  FIELD(attn_backward_args, seq_q);
  FIELD(attn_backward_args, seq_kv);
  FIELD(attn_backward_args, q);
  FIELD(attn_backward_args, k);
  FIELD(attn_backward_args, v);
  FIELD(attn_backward_args, o);
  FIELD(attn_backward_args, grad_output);
  FIELD(attn_backward_args, lse);
  FIELD(attn_backward_args, grad_q);
  FIELD(attn_backward_args, grad_k);
  FIELD(attn_backward_args, grad_v);
  FIELD(attn_backward_args, lengths);
  FIELD(attn_backward_args, keep);
  FIELD(attn_backward_args, bias);
  FIELD(attn_backward_args, grad_bias);
  FIELD(attn_backward_args, deterministic);
  FIELD(attn_backward_args, score_mod_captures);
  FIELD(attn_backward_args, sinks);
  FIELD(attn_backward_args, grad_sinks);
  FIELD(attn_backward_args, cu_seqlens_q);
  FIELD(attn_backward_args, cu_seqlens_k);
  SIZE(attn_launch_config);
  FIELD(attn_launch_config, context);
  FIELD(attn_launch_config, device);
  FIELD(attn_launch_config, stream);
  FIELD(attn_launch_config, workspace);
  FIELD(attn_launch_config, workspace_bytes);
  SIZE(attn_kernel_info);
  FIELD(attn_kernel_info, name);
  FIELD(attn_kernel_info, variant);
  FIELD(attn_kernel_info, arch);
  FIELD(attn_kernel_info, threads);
  FIELD(attn_kernel_info, shared_bytes);
  FIELD(attn_kernel_info, block_m);
  FIELD(attn_kernel_info, block_n);
  FIELD(attn_kernel_info, num_warps);
  FIELD(attn_kernel_info, stages);
  FIELD(attn_kernel_info, registers);
  FIELD(attn_kernel_info, spill_bytes);
  FIELD(attn_kernel_info, stack_bytes);
  FIELD(attn_kernel_info, cache_outcome);
  FIELD(attn_kernel_info, build_ms);
  FIELD(attn_kernel_info, heads_q);
  FIELD(attn_kernel_info, heads_kv);
  FIELD(attn_kernel_info, head_dim_qk);
  FIELD(attn_kernel_info, head_dim_v);
  FIELD(attn_kernel_info, writes_lse);
  SIZE(attn_cache_append_args);
  FIELD(attn_cache_append_args, batch);
  FIELD(attn_cache_append_args, new_tokens);
  FIELD(attn_cache_append_args, heads_q);
  FIELD(attn_cache_append_args, heads_kv);
  FIELD(attn_cache_append_args, k_new);
  FIELD(attn_cache_append_args, v_new);
  FIELD(attn_cache_append_args, k_cache);
  FIELD(attn_cache_append_args, v_cache);
  FIELD(attn_cache_append_args, capacity);
  FIELD(attn_cache_append_args, cache_seqlens);
  FIELD(attn_cache_append_args, seqlens_out);
  FIELD(attn_cache_append_args, block_table);
  FIELD(attn_cache_append_args, block_table_stride);
  FIELD(attn_cache_append_args, page_size);
  FIELD(attn_cache_append_args, num_pages);
  FIELD(attn_cache_append_args, rotary_cos);
  FIELD(attn_cache_append_args, rotary_sin);
  FIELD(attn_cache_append_args, rotary_positions);
  FIELD(attn_cache_append_args, seq_q);
  FIELD(attn_cache_append_args, q);
  FIELD(attn_cache_append_args, q_out);
  FIELD(attn_cache_append_args, q_at_each_position);
  return 0;
}
