// Kernels for gws_test.cc, compiled by clang-19 for each GFX9 target: global wave sync (ds_gws_*) through clang's
// builtins, which need a queue the KFD gave GWS (ALLOC_QUEUE_GWS). Each workgroup is one wave.
#include <stdint.h>

#define __global__ __attribute__((global))

// ds_gws_init: resource `resource` counts `value` (a semaphore's count, or a barrier's waves minus 1).
extern "C" __global__ void gws_init(uint32_t value, uint32_t resource) {
  __builtin_amdgcn_ds_gws_init(value, resource);
}

// Each wave takes the semaphore on resource 0, increments *value with a plain load and store (not atomic), and gives
// the semaphore back. The s_sleep between load and store hands the unit to other waves mid-update: without mutual
// exclusion they would read the same value and increments would be lost.
extern "C" __global__ void locked_increment(uint32_t* value) {
  __builtin_amdgcn_ds_gws_sema_p(0);
  if (__builtin_amdgcn_workitem_id_x() == 0) {
    const uint32_t v = __hip_atomic_load(value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __builtin_amdgcn_s_sleep(1);
    __hip_atomic_store(value, v + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
  __builtin_amdgcn_ds_gws_sema_v(0);
}

// Two rounds of a grid-wide GWS barrier on resource `resource` (passed in M0, as LLVM lowers a variable id), as
// ockl's grid sync uses it (value = waves - 1, no init): in each round each wave counts itself in the round's
// counter, waits at the barrier, and records what it sees, which can only be every wave of the grid.
extern "C" __global__ void barrier_rounds(uint32_t* arrived, uint32_t* seen, uint32_t groups, uint32_t resource) {
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  for (uint32_t round = 0; round < 2; ++round) {
    if (__builtin_amdgcn_workitem_id_x() == 0) {
      __hip_atomic_fetch_add(&arrived[round], 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    }
    __builtin_amdgcn_ds_gws_barrier(groups - 1, resource);
    if (__builtin_amdgcn_workitem_id_x() == 0) {
      seen[round * groups + group] = __hip_atomic_load(&arrived[round], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    }
  }
}

// Workgroup 0 releases `waiters` waves with one bulk release (ds_gws_sema_br) on resource 1; every other workgroup
// waits for the semaphore, then counts itself in *passed.
extern "C" __global__ void bulk_release(uint32_t* passed, uint32_t waiters) {
  if (__builtin_amdgcn_workgroup_id_x() == 0) {
    __builtin_amdgcn_ds_gws_sema_br(waiters, 1);
    return;
  }
  __builtin_amdgcn_ds_gws_sema_p(1);
  if (__builtin_amdgcn_workitem_id_x() == 0) __hip_atomic_fetch_add(passed, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
