# Loads libattn_c through the Python package and prints what it found.
import attn

try:
    lib = attn.library()
    print(f"attn {attn.__version__} from {lib._name}, C ABI {lib.attn_abi_version()}")
    print(f"decode queries {attn._decode_queries()}, score_mod captures {lib.attn_max_score_mod_captures()}")
except attn.AttnError as e:
    print(f"AttnError: {e}")
