# Debian's MLIR targets link the shared libLLVM. Replace that imported link
# with LLVM's static component libraries so attn's tools and library are
# self-contained (they run on the GPU machine, which has no LLVM).
find_package(ZLIB REQUIRED)
find_package(zstd REQUIRED)

llvm_map_components_to_libnames(ATTN_LLVM_STATIC_LIBS
  Support Demangle TargetParser BinaryFormat Core Remarks BitstreamReader)

foreach(target IN LISTS MLIR_EXPORTED_TARGETS)
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "EXECUTABLE")
    continue()
  endif()
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    continue()
  endif()
  list(FIND libs LLVM llvm_index)
  if(llvm_index EQUAL -1)
    continue()
  endif()
  list(REMOVE_ITEM libs LLVM)
  list(APPEND libs ${ATTN_LLVM_STATIC_LIBS})
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
endforeach()

set(LLVM_LINK_LLVM_DYLIB OFF)
set(MLIR_LINK_MLIR_DYLIB OFF)
add_link_options(-Wl,--as-needed)
