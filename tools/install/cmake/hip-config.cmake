# hipmem's HIP package for find_package(hip), with the targets ROCm's hip package defines:
#   hip::amdhip64  libamdhip64.so.7 and hipmem's HIP headers
#   hip::host      what host code calling the HIP runtime links to (any C or C++ compiler)
#   hip::device    also compiles the target's C++ sources as HIP with clang (kernels), as hip/defs.bzl does: no ROCm
#                  device libraries or clang's HIP wrapper headers (-nogpulib -nogpuinc), hipmem's <hip/hip_runtime.h>
#                  supplies the kernel language. Offload targets: GPU_TARGETS (else AMDGPU_TARGETS), by default the
#                  GPUs hipmem's presets simulate.
# The prefix is found from this file's place (PREFIX/lib/cmake/hip), so the tree can move.
get_filename_component(_hipmem_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

set(HIP_VERSION_MAJOR 7)
set(HIP_VERSION_MINOR 15)
set(HIP_VERSION_PATCH 0)
set(HIP_VERSION "${HIP_VERSION_MAJOR}.${HIP_VERSION_MINOR}.${HIP_VERSION_PATCH}")
set(HIP_PLATFORM "amd")
set(HIP_RUNTIME "rocclr")
set(HIP_COMPILER "clang")
set(hip_INCLUDE_DIR "${_hipmem_prefix}/include")
set(hip_INCLUDE_DIRS "${hip_INCLUDE_DIR}")
set(hip_LIB_INSTALL_DIR "${_hipmem_prefix}/lib")
set(hip_BIN_INSTALL_DIR "${_hipmem_prefix}/bin")

if(NOT DEFINED GPU_TARGETS)
  if(DEFINED AMDGPU_TARGETS)
    set(GPU_TARGETS "${AMDGPU_TARGETS}")
  else()
    set(GPU_TARGETS "gfx908;gfx90a;gfx942" CACHE STRING "GPU targets hip::device compiles for")
  endif()
endif()

if(NOT TARGET hip::amdhip64)
  add_library(hip::amdhip64 SHARED IMPORTED)
  set_target_properties(hip::amdhip64 PROPERTIES
    IMPORTED_LOCATION "${_hipmem_prefix}/lib/libamdhip64.so.7"
    IMPORTED_SONAME "libamdhip64.so.7"
    INTERFACE_INCLUDE_DIRECTORIES "${hip_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "__HIP_PLATFORM_AMD__=1")

  add_library(hip::host INTERFACE IMPORTED)
  set_target_properties(hip::host PROPERTIES INTERFACE_LINK_LIBRARIES "hip::amdhip64")

  add_library(hip::device INTERFACE IMPORTED)
  set(_hipmem_offload "")
  foreach(_hipmem_arch IN LISTS GPU_TARGETS)
    list(APPEND _hipmem_offload "--offload-arch=${_hipmem_arch}")
  endforeach()
  # Only C++ sources become HIP, and only under clang: a C source or another compiler keeps its own mode.
  set_target_properties(hip::device PROPERTIES
    INTERFACE_LINK_LIBRARIES "hip::host"
    INTERFACE_COMPILE_OPTIONS
      "$<$<COMPILE_LANG_AND_ID:CXX,Clang>:SHELL:-x hip>;$<$<COMPILE_LANG_AND_ID:CXX,Clang>:-nogpulib>;$<$<COMPILE_LANG_AND_ID:CXX,Clang>:-nogpuinc>;$<$<COMPILE_LANG_AND_ID:CXX,Clang>:${_hipmem_offload}>")
  unset(_hipmem_offload)
  unset(_hipmem_arch)
endif()

set(hip_LIBRARIES hip::host)
set(hip_FOUND TRUE)
unset(_hipmem_prefix)
