# attn_use_static_llvm(): Debian's MLIR targets link the shared libLLVM;
# replace that imported link with LLVM's static component libraries. attn's
# build does this (cmake/AttnStaticLLVM.cmake), and so does attnConfig.cmake
# for projects that link attn::attn, so that one copy of LLVM is linked.
# Needs MLIR's and LLVM's CMake packages loaded.
function(attn_use_static_llvm)
  set(CMAKE_MODULE_PATH ${CMAKE_MODULE_PATH} ${LLVM_CMAKE_DIR})
  find_package(ZLIB REQUIRED)
  find_package(zstd REQUIRED)
  llvm_map_components_to_libnames(static_libs
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
    list(APPEND libs ${static_libs})
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
  endforeach()
endfunction()
