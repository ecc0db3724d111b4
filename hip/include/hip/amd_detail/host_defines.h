/* Kernel-language markers for a host compiler, rewritten for hipmem.
 *
 * HIP-Clang gives __global__, __device__ and friends a meaning (clang's attributes, below); a plain C or C++
 * compiler sees host code only, so, as upstream does for non-HIP compilers, the markers expand to nothing (or to
 * inline).
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H

#ifndef GENERIC_GRID_LAUNCH
#define GENERIC_GRID_LAUNCH 1
#endif

#if defined(__clang__) && defined(__HIP__)
/* HIP-Clang (clang -x hip): the markers are clang's CUDA/HIP attributes, so the device side of a TU compiles its
 * kernels and the host side gets their launch stubs. A __managed__ variable lives in managed memory: clang makes
 * its name a pointer on both sides and registers it (__hipRegisterManagedVar); the runtime points both at one
 * hipMallocManaged allocation. */
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
/* __noinline__ is a keyword of clang's CUDA/HIP mode (libstdc++ spells __attribute__((__noinline__)), which a
 * macro would break). */
#define __forceinline__ inline __attribute__((always_inline))
#define __hip_img_chk__
/* __launch_bounds__(max threads per block[, min blocks per multiprocessor]), as upstream maps it: the kernel's flat
 * work-group size limit (the metadata's max_flat_workgroup_size, which the runtime checks launches against) and,
 * when given, the minimum waves per execution unit the compiler must leave room for. (Clang's own CUDA
 * launch_bounds attribute does not reach the AMDGPU back end.) */
#define __hipmem_launch_bounds_1(max_threads) __attribute__((amdgpu_flat_work_group_size(1, max_threads)))
#define __hipmem_launch_bounds_2(max_threads, min_blocks) \
  __attribute__((amdgpu_flat_work_group_size(1, max_threads), amdgpu_waves_per_eu(min_blocks)))
#define __hipmem_launch_bounds_pick(_1, _2, name, ...) name
#define __launch_bounds__(...) \
  __hipmem_launch_bounds_pick(__VA_ARGS__, __hipmem_launch_bounds_2, __hipmem_launch_bounds_1, )(__VA_ARGS__)
#else
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __noinline__
#define __forceinline__ inline
#define __hip_img_chk__
#endif

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
