/* A libattn_c stand-in: of another ABI (-DABI=N), or without
 * attn_abi_version, as a library from before ABI versions. */
#ifdef ABI
int attn_abi_version(void) { return ABI; }
#endif
const char *attn_version(void) { return "0.0.0"; }
