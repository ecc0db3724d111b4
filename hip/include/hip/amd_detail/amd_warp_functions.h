/* The HIP kernel language's wave functions (shuffles and votes), written for hipmem over clang's AMDGPU builtins
 * (HIP-Clang only; included by amd_hip_runtime.h).
 *
 * Plays upstream HIP's amd_warp_functions.h. A shuffle reads another lane's value with ds_bpermute_b32 (the LDS
 * crossbar, without touching LDS memory): each lane names the lane it reads, times 4. `width` (a power of two up to
 * warpSize) splits the wave into segments that shuffle among themselves; a lane whose source falls outside its
 * segment reads its own value, as CUDA defines it. 64-bit values move as two 32-bit halves.
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_WARP_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_WARP_FUNCTIONS_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_warp_functions.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/amd_detail/amd_device_functions.h>

/* The value of lane `source` (an absolute lane of the wave). */
__device__ inline int __hipmem_read_lane(int value, int source) {
  return __builtin_amdgcn_ds_bpermute(source << 2, value);
}

/* Source lanes for each shuffle kind, from this lane `self`. */
__device__ inline int __hipmem_shfl_source(int lane, int width) {
  const int self = static_cast<int>(__lane_id());
  return (lane & (width - 1)) + (self & ~(width - 1));
}
__device__ inline int __hipmem_shfl_up_source(unsigned int delta, int width) {
  const int self = static_cast<int>(__lane_id());
  const int source = self - static_cast<int>(delta);
  return source < (self & ~(width - 1)) ? self : source;
}
__device__ inline int __hipmem_shfl_down_source(unsigned int delta, int width) {
  const int self = static_cast<int>(__lane_id());
  return (self & (width - 1)) + static_cast<int>(delta) >= width ? self : self + static_cast<int>(delta);
}
__device__ inline int __hipmem_shfl_xor_source(int lane_mask, int width) {
  const int self = static_cast<int>(__lane_id());
  const int source = self ^ lane_mask;
  return source >= ((self + width) & ~(width - 1)) ? self : source;
}

/* A value of any 4- or 8-byte type read from lane `source`. */
template <typename T>
__device__ inline T __hipmem_shfl_value(T value, int source) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffles move 4- and 8-byte values");
  if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(T, __hipmem_read_lane(__builtin_bit_cast(int, value), source));
  } else {
    struct Halves {
      int low;
      int high;
    };
    Halves halves = __builtin_bit_cast(Halves, value);
    halves.low = __hipmem_read_lane(halves.low, source);
    halves.high = __hipmem_read_lane(halves.high, source);
    return __builtin_bit_cast(T, halves);
  }
}

#define __HIPMEM_SHUFFLES(type)                                                                            \
  __device__ inline type __shfl(type var, int src_lane, int width = warpSize) {                           \
    return __hipmem_shfl_value(var, __hipmem_shfl_source(src_lane, width));                               \
  }                                                                                                       \
  __device__ inline type __shfl_up(type var, unsigned int lane_delta, int width = warpSize) {             \
    return __hipmem_shfl_value(var, __hipmem_shfl_up_source(lane_delta, width));                          \
  }                                                                                                       \
  __device__ inline type __shfl_down(type var, unsigned int lane_delta, int width = warpSize) {           \
    return __hipmem_shfl_value(var, __hipmem_shfl_down_source(lane_delta, width));                        \
  }                                                                                                       \
  __device__ inline type __shfl_xor(type var, int lane_mask, int width = warpSize) {                      \
    return __hipmem_shfl_value(var, __hipmem_shfl_xor_source(lane_mask, width));                          \
  }

__HIPMEM_SHUFFLES(int)
__HIPMEM_SHUFFLES(unsigned int)
__HIPMEM_SHUFFLES(float)
__HIPMEM_SHUFFLES(double)
__HIPMEM_SHUFFLES(long)
__HIPMEM_SHUFFLES(unsigned long)
__HIPMEM_SHUFFLES(long long)
__HIPMEM_SHUFFLES(unsigned long long)
#undef __HIPMEM_SHUFFLES

/* --- Votes -----------------------------------------------------------------------------------------------------
 * Over the wave's active lanes (EXEC). */
__device__ inline unsigned long long __activemask() { return __builtin_amdgcn_read_exec(); }
/* Bit n set when lane n is active and its predicate is non-zero. */
__device__ inline unsigned long long __ballot(int predicate) {
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 32
  return __builtin_amdgcn_ballot_w32(predicate != 0);
#else
  return __builtin_amdgcn_ballot_w64(predicate != 0);
#endif
}
__device__ inline int __any(int predicate) { return __ballot(predicate) != 0; }
__device__ inline int __all(int predicate) { return __ballot(predicate) == __activemask(); }

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_WARP_FUNCTIONS_H */
