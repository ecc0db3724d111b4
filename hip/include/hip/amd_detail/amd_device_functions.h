/* The HIP kernel language's work-item coordinates, synchronisation and bit functions, written for hipmem over
 * clang's AMDGPU builtins. Included by amd_hip_runtime.h for HIP-Clang only (clang -x hip); both sides of the TU
 * parse it (default arguments and templates of device functions are seen by the host side too), and only the
 * device side runs it.
 *
 * Plays upstream HIP's amd_hip_runtime.h coordinates and amd_device_functions.h. Upstream reaches some of these
 * through the ROCm device library (ockl); hipmem compiles with -nogpulib, so each one here is a clang builtin or
 * plain code over them.
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_FUNCTIONS_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_device_functions.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/amd_detail/host_defines.h>

/* --- Wave size ------------------------------------------------------------------------------------------------
 * 64 on every GFX9 target (the ones hipmem's simulated GPUs run); the device side of an RDNA build says 32. The
 * host side sees 64 so default arguments that name warpSize parse on both sides. */
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN_WAVEFRONT_SIZE)
static constexpr int warpSize = __AMDGCN_WAVEFRONT_SIZE;
#else
static constexpr int warpSize = 64;
#endif

/* --- Coordinates ----------------------------------------------------------------------------------------------
 * threadIdx.x and friends read like variables but each member is a property whose getter is a builtin: the
 * structs hold no data, and the objects are only declared (a weak device symbol nothing defines or loads).
 * blockDim is the work-group size of the dispatch (code object v5: the hidden group-size argument the runtime
 * fills; v4: the dispatch packet). HIP launches whole blocks (grid = gridDim * blockDim), so gridDim is the
 * packet's grid size over the work-group size. */
#define __HIPMEM_COORDINATE(member, expression)                                                   \
  __declspec(property(get = __get_##member)) unsigned int member;                                \
  __device__ __attribute__((always_inline)) unsigned int __get_##member() const noexcept {      \
    return (expression);                                                                          \
  }

struct __hip_builtin_threadIdx_t {
  __HIPMEM_COORDINATE(x, __builtin_amdgcn_workitem_id_x())
  __HIPMEM_COORDINATE(y, __builtin_amdgcn_workitem_id_y())
  __HIPMEM_COORDINATE(z, __builtin_amdgcn_workitem_id_z())
  __device__ operator dim3() const { return dim3(x, y, z); }
};

struct __hip_builtin_blockIdx_t {
  __HIPMEM_COORDINATE(x, __builtin_amdgcn_workgroup_id_x())
  __HIPMEM_COORDINATE(y, __builtin_amdgcn_workgroup_id_y())
  __HIPMEM_COORDINATE(z, __builtin_amdgcn_workgroup_id_z())
  __device__ operator dim3() const { return dim3(x, y, z); }
};

struct __hip_builtin_blockDim_t {
  __HIPMEM_COORDINATE(x, __builtin_amdgcn_workgroup_size_x())
  __HIPMEM_COORDINATE(y, __builtin_amdgcn_workgroup_size_y())
  __HIPMEM_COORDINATE(z, __builtin_amdgcn_workgroup_size_z())
  __device__ operator dim3() const { return dim3(x, y, z); }
};

struct __hip_builtin_gridDim_t {
  __HIPMEM_COORDINATE(x, __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x())
  __HIPMEM_COORDINATE(y, __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y())
  __HIPMEM_COORDINATE(z, __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z())
  __device__ operator dim3() const { return dim3(x, y, z); }
};

#undef __HIPMEM_COORDINATE

extern const __device__ __attribute__((weak)) __hip_builtin_threadIdx_t threadIdx;
extern const __device__ __attribute__((weak)) __hip_builtin_blockIdx_t blockIdx;
extern const __device__ __attribute__((weak)) __hip_builtin_blockDim_t blockDim;
extern const __device__ __attribute__((weak)) __hip_builtin_gridDim_t gridDim;

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

/* --- Fences and barriers --------------------------------------------------------------------------------------
 * __syncthreads: every wave of the block reaches s_barrier; the release fence before it publishes this work-item's
 * shared and global stores to the block, the acquire fence after it makes the others' visible. */
__device__ inline void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ inline void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }

__device__ inline void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/* The reducing barriers: one shared counter per block, cleared by work-item 0 before the votes and read by all
 * after them (three barriers: clear, vote, read; the last keeps the next call's clear from racing a reader). */
__device__ inline int __hipmem_syncthreads_reduce(int predicate, int op) {
  __shared__ int votes;
  const bool first = __builtin_amdgcn_workitem_id_x() == 0 && __builtin_amdgcn_workitem_id_y() == 0 &&
                     __builtin_amdgcn_workitem_id_z() == 0;
  if (first) votes = op == 1 ? 1 : 0;
  __syncthreads();
  if (op == 0 && predicate) __hip_atomic_fetch_add(&votes, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  if (op == 1 && !predicate) __hip_atomic_store(&votes, 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  if (op == 2 && predicate) __hip_atomic_store(&votes, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __syncthreads();
  const int result = __hip_atomic_load(&votes, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __syncthreads();
  return result;
}
/* How many work-items of the block passed a non-zero predicate; whether all did; whether any did. */
__device__ inline int __syncthreads_count(int predicate) { return __hipmem_syncthreads_reduce(predicate, 0); }
__device__ inline int __syncthreads_and(int predicate) { return __hipmem_syncthreads_reduce(predicate, 1); }
__device__ inline int __syncthreads_or(int predicate) { return __hipmem_syncthreads_reduce(predicate, 2); }

/* --- Lanes ----------------------------------------------------------------------------------------------------- */
/* This work-item's lane in its wave: the count of lanes below it (mbcnt over an all-ones mask). */
__device__ inline unsigned int __lane_id() {
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 32
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#else
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#endif
}

/* --- Bit functions (CUDA's integer intrinsics) ----------------------------------------------------------------- */
__device__ inline unsigned int __popc(unsigned int x) { return __builtin_popcount(x); }
__device__ inline unsigned int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
/* Position of the least significant set bit, counting from 1; 0 when none is set. */
__device__ inline int __ffs(unsigned int x) { return x == 0 ? 0 : __builtin_ctz(x) + 1; }
__device__ inline int __ffs(int x) { return __ffs(static_cast<unsigned int>(x)); }
__device__ inline int __ffsll(unsigned long long x) { return x == 0 ? 0 : __builtin_ctzll(x) + 1; }
__device__ inline int __ffsll(long long x) { return __ffsll(static_cast<unsigned long long>(x)); }
/* Leading zero bits; the full width for 0. */
__device__ inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
__device__ inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
__device__ inline unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__device__ inline unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }

/* --- Clocks ---------------------------------------------------------------------------------------------------- */
__device__ inline long long clock64() { return static_cast<long long>(__builtin_readcyclecounter()); }

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_DEVICE_FUNCTIONS_H */
