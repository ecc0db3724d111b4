# hipmem's thunk for find_package(hsakmt): the target libhsakmt's package defines, hsakmt::hsakmt
# (libhsakmt.so.1, headers as <hsakmt/hsakmt.h>). The prefix is found from this file's place (PREFIX/lib/cmake/hsakmt).
get_filename_component(_hipmem_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET hsakmt::hsakmt)
  add_library(hsakmt::hsakmt SHARED IMPORTED)
  set_target_properties(hsakmt::hsakmt PROPERTIES
    IMPORTED_LOCATION "${_hipmem_prefix}/lib/libhsakmt.so.1"
    IMPORTED_SONAME "libhsakmt.so.1"
    INTERFACE_INCLUDE_DIRECTORIES "${_hipmem_prefix}/include")
endif()
set(hsakmt_FOUND TRUE)
unset(_hipmem_prefix)
