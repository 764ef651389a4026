/* The C API from an installed attn: compiles one attention kernel (no GPU
 * needed) and prints what was built. */
#include <attn-c/attn.h>

#include <stdio.h>

static const char *kAttention =
    "func.func @sdpa(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x128x64xbf16>,\n"
    "                %v: tensor<1x2x128x64xbf16>) -> tensor<1x2x128x64xbf16> {\n"
    "  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}\n"
    "      : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>\n"
    "      -> tensor<1x2x128x64xbf16>\n"
    "  return %o : tensor<1x2x128x64xbf16>\n"
    "}\n";

int main(void) {
  printf("attn %s, C ABI %d (header %d)\n", attn_version(), (int)attn_abi_version(),
         ATTN_C_ABI_VERSION);
  if (attn_abi_version() != ATTN_C_ABI_VERSION) {
    fprintf(stderr, "libattn_c's ABI differs from its header's\n");
    return 1;
  }
  attn_context *context = NULL;
  /* sm_80 explicitly, and no disk cache: the same on every machine. */
  if (attn_context_create("sm_80", "", &context) != ATTN_OK) {
    fprintf(stderr, "%s\n", attn_last_error());
    return 1;
  }
  attn_kernel *kernel = NULL;
  if (attn_compile(context, kAttention, NULL, 0, 0, 0, 0, &kernel) != ATTN_OK) {
    fprintf(stderr, "%s\n", attn_last_error());
    attn_context_destroy(context);
    return 1;
  }
  attn_kernel_info info;
  attn_kernel_get_info(kernel, &info);
  printf("C: compiled %s (variant %s) for %s\n", info.name, info.variant, info.arch);
  attn_kernel_destroy(kernel);
  attn_context_destroy(context);
  return 0;
}
