// Kernels for cooperative_test.cc, compiled by clang-19 for each GFX9 target: workgroups that wait on each other
// through global memory, which complete only when the compute units keep them resident together.
#include <stdint.h>

#define __global__ __attribute__((global))

// Every workgroup arrives (one atomic add by its first work-item), then waits until all `groups` have, sleeping
// between polls; it then records how many had arrived, which can only be all of them.
extern "C" __global__ void arrive_and_wait_sleeping(uint32_t* counter, uint32_t* seen, uint32_t groups) {
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  if (__builtin_amdgcn_workitem_id_x() == 0) {
    __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    uint32_t now;
    while ((now = __hip_atomic_load(counter, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) < groups) {
      __builtin_amdgcn_s_sleep(2);
    }
    seen[group] = now;
  }
}

// The same wait polling without s_sleep: only the scheduler's slices let the others run.
extern "C" __global__ void arrive_and_wait_busy(uint32_t* counter, uint32_t* seen, uint32_t groups) {
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  if (__builtin_amdgcn_workitem_id_x() == 0) {
    __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    uint32_t now;
    while ((now = __hip_atomic_load(counter, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) < groups) {
    }
    seen[group] = now;
  }
}

// A chain against dispatch order: workgroup g waits for workgroup g + 1's token, adds its own id and passes it
// on to g - 1; the last workgroup starts it. Every workgroup but the last spins until one started after it ran.
extern "C" __global__ void reverse_chain(uint32_t* tokens, uint32_t groups) {
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  if (__builtin_amdgcn_workitem_id_x() != 0) return;
  uint32_t value = 1;
  if (group + 1 < groups) {
    while ((value = __hip_atomic_load(&tokens[group + 1], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)) == 0) {
      __builtin_amdgcn_s_sleep(1);
    }
  }
  __hip_atomic_store(&tokens[group], value * 3 + group, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}

// Workgroup `faulty` stores through `bad` (unmapped); the others wait forever for a counter it never bumps. The
// dispatch must end with the fault rather than hang.
extern "C" __global__ void fault_while_others_wait(uint32_t* counter, uint32_t* bad, uint32_t faulty) {
  const uint32_t group = __builtin_amdgcn_workgroup_id_x();
  if (__builtin_amdgcn_workitem_id_x() != 0) return;
  if (group == faulty) {
    *bad = 1;
    __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
  while (__hip_atomic_load(counter, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0) {
    __builtin_amdgcn_s_sleep(1);
  }
}
