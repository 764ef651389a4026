# cmake --install: headers, libattn_c.so, the C++ static libraries, the
# tools, the Python package, attnConfig.cmake (find_package(attn CONFIG):
# attn::attn_c, and attn::attn where MLIR 22 is found) and attn.pc.
include(CMakePackageConfigHelpers)

set(ATTN_INSTALL_LIBDIR lib${LLVM_LIBDIR_SUFFIX}) # where add_mlir_library puts its libraries
set(ATTN_INSTALL_CMAKEDIR ${ATTN_INSTALL_LIBDIR}/cmake/attn)
set(ATTN_PYTHON_INSTALL_DIR ${ATTN_INSTALL_LIBDIR}/python3/site-packages
    CACHE STRING "Where (under the prefix) the Python package 'attn' goes")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/attn ${PROJECT_SOURCE_DIR}/include/attn-c
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# attn/Runtime/Context.h includes the kernels' parameter block and the tile
# scheduler, which the kernels compile too.
install(FILES ${PROJECT_SOURCE_DIR}/kernels-templates/attn/params.h
              ${PROJECT_SOURCE_DIR}/kernels-templates/attn/tile_scheduler.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attn)
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/attn
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
        PATTERN CMakeFiles EXCLUDE)

install(TARGETS attn_c EXPORT attnCTargets
        LIBRARY DESTINATION ${ATTN_INSTALL_LIBDIR})
install(EXPORT attnCTargets NAMESPACE attn:: DESTINATION ${ATTN_INSTALL_CMAKEDIR})

set(ATTN_CXX_LIBRARIES AttnAPI AttnRuntime AttnVariants MLIRAttnDialect MLIRAttnTargetCuda
    MLIRAttnTransforms MLIRAttnReference MLIRAttnSupport)
install(TARGETS ${ATTN_CXX_LIBRARIES} EXPORT attnTargets
        ARCHIVE DESTINATION ${ATTN_INSTALL_LIBDIR})
install(EXPORT attnTargets NAMESPACE attn:: DESTINATION ${ATTN_INSTALL_CMAKEDIR})

install(TARGETS attn-opt attn-translate attn-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The Python package finds the library relative to itself.
file(RELATIVE_PATH ATTN_PYTHON_TO_LIB /prefix/${ATTN_PYTHON_INSTALL_DIR}/attn
     /prefix/${ATTN_INSTALL_LIBDIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/attn_install.py.in
               ${PROJECT_BINARY_DIR}/python/attn/_install.py @ONLY)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/attn DESTINATION ${ATTN_PYTHON_INSTALL_DIR}
        PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/python/attn/_install.py
        DESTINATION ${ATTN_PYTHON_INSTALL_DIR}/attn)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/attnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/attnConfig.cmake INSTALL_DESTINATION ${ATTN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/attnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/attnConfig.cmake
              ${PROJECT_BINARY_DIR}/attnConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/AttnStaticLLVMTargets.cmake
        DESTINATION ${ATTN_INSTALL_CMAKEDIR})

file(RELATIVE_PATH ATTN_PC_TO_PREFIX /prefix/${ATTN_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/attn.pc.in ${PROJECT_BINARY_DIR}/attn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/attn.pc DESTINATION ${ATTN_INSTALL_LIBDIR}/pkgconfig)
