# Prints the size and field offsets of the Python package's ctypes mirrors
# of attn-c/attn.h's structs, in the format of c_layout.c (no library or
# torch needed).
import attn

MIRRORS = [("attn_tensor", attn._Tensor), ("attn_flash_args", attn._FlashArgs),
           ("attn_backward_args", attn._BackwardArgs), ("attn_launch_config", attn._LaunchConfig),
           ("attn_kernel_info", attn._KernelInfo), ("attn_cache_append_args", attn._CacheAppendArgs),
           ("attn_text_tensor", attn._TextTensor), ("attn_flash_op_text", attn._FlashOpText),
           ("attn_text_value", attn._TextValue)]

for name, mirror in MIRRORS:
    print(f"{name} size {attn.ctypes.sizeof(mirror)}")
    for field, _ in mirror._fields_:
        print(f"{name}.{field} {getattr(mirror, field).offset}")
