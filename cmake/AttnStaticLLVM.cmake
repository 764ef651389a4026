# Debian's MLIR targets link the shared libLLVM. Link LLVM's static component
# libraries instead, so attn's tools and library are self-contained (they run
# on the GPU machine, which has no LLVM).
include(AttnStaticLLVMTargets)
attn_use_static_llvm()

set(LLVM_LINK_LLVM_DYLIB OFF)
set(MLIR_LINK_MLIR_DYLIB OFF)
add_link_options(-Wl,--as-needed)
