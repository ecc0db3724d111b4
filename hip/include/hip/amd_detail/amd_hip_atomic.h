/* The HIP kernel language's atomic functions, written for hipmem over clang's __hip_atomic_* builtins (HIP-Clang
 * only; included by amd_hip_runtime.h).
 *
 * Plays upstream HIP's amd_hip_atomic.h: each function returns the value the location held before it, and is
 * relaxed (no ordering with other locations: pair with __threadfence* for that). The plain form is atomic for the
 * whole device (agent scope), `_system` also against the host and peer devices, `_block` only within the block
 * (work-group scope). atomicInc/atomicDec wrap as CUDA defines them: inc stores ((old >= limit) ? 0 : old + 1),
 * dec stores ((old == 0 || old > limit) ? limit : old - 1).
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_ATOMIC_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_ATOMIC_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_hip_atomic.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/amd_detail/host_defines.h>

/* One overload per type and scope suffix. */
#define __HIPMEM_ATOMIC_RMW(name, builtin, type)                                                             \
  __device__ inline type name(type* address, type value) {                                                 \
    return builtin(address, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                           \
  }                                                                                                         \
  __device__ inline type name##_system(type* address, type value) {                                        \
    return builtin(address, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);                          \
  }                                                                                                         \
  __device__ inline type name##_block(type* address, type value) {                                         \
    return builtin(address, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);                       \
  }

#define __HIPMEM_ATOMIC_INTEGERS(name, builtin)           \
  __HIPMEM_ATOMIC_RMW(name, builtin, int)                 \
  __HIPMEM_ATOMIC_RMW(name, builtin, unsigned int)        \
  __HIPMEM_ATOMIC_RMW(name, builtin, unsigned long)       \
  __HIPMEM_ATOMIC_RMW(name, builtin, unsigned long long)

__HIPMEM_ATOMIC_INTEGERS(atomicAdd, __hip_atomic_fetch_add)
__HIPMEM_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, float)
__HIPMEM_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, double)
__HIPMEM_ATOMIC_INTEGERS(atomicSub, __hip_atomic_fetch_sub)
__HIPMEM_ATOMIC_RMW(atomicSub, __hip_atomic_fetch_sub, float)
__HIPMEM_ATOMIC_RMW(atomicSub, __hip_atomic_fetch_sub, double)
__HIPMEM_ATOMIC_INTEGERS(atomicExch, __hip_atomic_exchange)
__HIPMEM_ATOMIC_RMW(atomicExch, __hip_atomic_exchange, float)
__HIPMEM_ATOMIC_RMW(atomicExch, __hip_atomic_exchange, double)
__HIPMEM_ATOMIC_INTEGERS(atomicMin, __hip_atomic_fetch_min)
__HIPMEM_ATOMIC_RMW(atomicMin, __hip_atomic_fetch_min, long long)
__HIPMEM_ATOMIC_INTEGERS(atomicMax, __hip_atomic_fetch_max)
__HIPMEM_ATOMIC_RMW(atomicMax, __hip_atomic_fetch_max, long long)
__HIPMEM_ATOMIC_INTEGERS(atomicAnd, __hip_atomic_fetch_and)
__HIPMEM_ATOMIC_INTEGERS(atomicOr, __hip_atomic_fetch_or)
__HIPMEM_ATOMIC_INTEGERS(atomicXor, __hip_atomic_fetch_xor)

#undef __HIPMEM_ATOMIC_INTEGERS
#undef __HIPMEM_ATOMIC_RMW

/* atomicCAS: stores `desired` when the location holds `compare`; returns what it held. */
#define __HIPMEM_ATOMIC_CAS(suffix, type, scope)                                                          \
  __device__ inline type atomicCAS##suffix(type* address, type compare, type desired) {                 \
    __hip_atomic_compare_exchange_strong(address, &compare, desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED, \
                                         scope);                                                        \
    return compare;                                                                                     \
  }
#define __HIPMEM_ATOMIC_CAS_TYPES(suffix, scope)                   \
  __HIPMEM_ATOMIC_CAS(suffix, int, scope)                          \
  __HIPMEM_ATOMIC_CAS(suffix, unsigned int, scope)                 \
  __HIPMEM_ATOMIC_CAS(suffix, unsigned long, scope)                \
  __HIPMEM_ATOMIC_CAS(suffix, unsigned long long, scope)           \
  __HIPMEM_ATOMIC_CAS(suffix, float, scope)                        \
  __HIPMEM_ATOMIC_CAS(suffix, double, scope)
__HIPMEM_ATOMIC_CAS_TYPES(, __HIP_MEMORY_SCOPE_AGENT)
__HIPMEM_ATOMIC_CAS_TYPES(_system, __HIP_MEMORY_SCOPE_SYSTEM)
__HIPMEM_ATOMIC_CAS_TYPES(_block, __HIP_MEMORY_SCOPE_WORKGROUP)
#undef __HIPMEM_ATOMIC_CAS_TYPES
#undef __HIPMEM_ATOMIC_CAS

/* Floating-point min/max: a compare-and-swap loop on the value's bits, so NaN and signed zero compare as the
 * language's < does. */
#define __HIPMEM_ATOMIC_FLOAT_MINMAX(name, suffix, type, scope, keeps_old)                                   \
  __device__ inline type name##suffix(type* address, type value) {                                         \
    type old = __hip_atomic_load(address, __ATOMIC_RELAXED, scope);                                        \
    while (!(keeps_old)) {                                                                                 \
      if (__hip_atomic_compare_exchange_weak(address, &old, value, __ATOMIC_RELAXED, __ATOMIC_RELAXED,     \
                                             scope)) {                                                     \
        break;                                                                                             \
      }                                                                                                    \
    }                                                                                                      \
    return old;                                                                                            \
  }
#define __HIPMEM_ATOMIC_FLOAT_MINMAX_ALL(type)                                                               \
  __HIPMEM_ATOMIC_FLOAT_MINMAX(atomicMin, , type, __HIP_MEMORY_SCOPE_AGENT, !(value < old))                  \
  __HIPMEM_ATOMIC_FLOAT_MINMAX(atomicMin, _system, type, __HIP_MEMORY_SCOPE_SYSTEM, !(value < old))          \
  __HIPMEM_ATOMIC_FLOAT_MINMAX(atomicMin, _block, type, __HIP_MEMORY_SCOPE_WORKGROUP, !(value < old))        \
  __HIPMEM_ATOMIC_FLOAT_MINMAX(atomicMax, , type, __HIP_MEMORY_SCOPE_AGENT, !(value > old))                  \
  __HIPMEM_ATOMIC_FLOAT_MINMAX(atomicMax, _system, type, __HIP_MEMORY_SCOPE_SYSTEM, !(value > old))          \
  __HIPMEM_ATOMIC_FLOAT_MINMAX(atomicMax, _block, type, __HIP_MEMORY_SCOPE_WORKGROUP, !(value > old))
__HIPMEM_ATOMIC_FLOAT_MINMAX_ALL(float)
__HIPMEM_ATOMIC_FLOAT_MINMAX_ALL(double)
#undef __HIPMEM_ATOMIC_FLOAT_MINMAX_ALL
#undef __HIPMEM_ATOMIC_FLOAT_MINMAX

/* atomicInc / atomicDec: the GPU's own wrapping increment and decrement (one instruction). */
#define __HIPMEM_ATOMIC_WRAP(name, builtin)                                                 \
  __device__ inline unsigned int name(unsigned int* address, unsigned int limit) {         \
    return builtin(address, limit, __ATOMIC_RELAXED, "agent");                             \
  }                                                                                        \
  __device__ inline unsigned int name##_system(unsigned int* address, unsigned int limit) { \
    return builtin(address, limit, __ATOMIC_RELAXED, "");                                  \
  }                                                                                        \
  __device__ inline unsigned int name##_block(unsigned int* address, unsigned int limit) {  \
    return builtin(address, limit, __ATOMIC_RELAXED, "workgroup");                         \
  }
__HIPMEM_ATOMIC_WRAP(atomicInc, __builtin_amdgcn_atomic_inc32)
__HIPMEM_ATOMIC_WRAP(atomicDec, __builtin_amdgcn_atomic_dec32)
#undef __HIPMEM_ATOMIC_WRAP

/* Adds without returning the old value (lets the compiler pick the no-return instruction). */
__device__ inline void atomicAddNoRet(float* address, float value) {
  __hip_atomic_fetch_add(address, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_ATOMIC_H */
