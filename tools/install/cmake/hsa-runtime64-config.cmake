# hipmem's HSA runtime for find_package(hsa-runtime64): the target ROCr's package defines,
# hsa-runtime64::hsa-runtime64 (libhsa-runtime64.so.1, headers as <hsa/hsa.h>). The prefix is found from this
# file's place (PREFIX/lib/cmake/hsa-runtime64).
get_filename_component(_hipmem_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET hsa-runtime64::hsa-runtime64)
  add_library(hsa-runtime64::hsa-runtime64 SHARED IMPORTED)
  set_target_properties(hsa-runtime64::hsa-runtime64 PROPERTIES
    IMPORTED_LOCATION "${_hipmem_prefix}/lib/libhsa-runtime64.so.1"
    IMPORTED_SONAME "libhsa-runtime64.so.1"
    INTERFACE_INCLUDE_DIRECTORIES "${_hipmem_prefix}/include")
endif()
set(hsa-runtime64_FOUND TRUE)
unset(_hipmem_prefix)
