/* Kernel-language markers for a host compiler, rewritten for hipmem.
 *
 * hipcc gives __global__, __device__ and friends a meaning; a plain C or C++ compiler sees host code
 * only, so, as upstream does for non-HIP compilers, the markers expand to nothing (or to inline).
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H

#ifndef GENERIC_GRID_LAUNCH
#define GENERIC_GRID_LAUNCH 1
#endif

#if defined(__clang__) && defined(__HIP__)
#error "hipmem's headers are for host compilers; device code needs hipcc and upstream's headers"
#endif

#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __noinline__
#define __forceinline__ inline
#define __hip_img_chk__

#if defined(__cplusplus)
/* Fixed-width aliases upstream exposes for code that cannot include <cstdint>. */
typedef unsigned char __hip_uint8_t;
typedef unsigned short __hip_uint16_t;
typedef unsigned int __hip_uint32_t;
typedef unsigned long long __hip_uint64_t;
typedef signed char __hip_int8_t;
typedef signed short __hip_int16_t;
typedef signed int __hip_int32_t;
typedef signed long long __hip_int64_t;
#endif

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H */
