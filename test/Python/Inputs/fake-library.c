/* A libattn_c stand-in: of another ABI (-DABI=N), or without
 * attn_abi_version, as a library from before ABI versions; with
 * -DCAPTURES=N, of this ABI but with other score_mod limits. */
#ifdef ABI
int attn_abi_version(void) { return ABI; }
#endif
#ifdef CAPTURES
int attn_max_decode_queries(void) { return 16; }
int attn_max_score_mod_captures(void) { return CAPTURES; }
#endif
const char *attn_version(void) { return "0.0.0"; }
