// Kernels the engine tests run, compiled by clang-19 for each GFX9 target (no HIP headers yet: the kernel
// language builtins directly).
#include <stdint.h>

#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))

static __attribute__((device)) inline unsigned GlobalId() {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
}

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const unsigned i = GlobalId();
  if (i < static_cast<unsigned>(n)) c[i] = a[i] + b[i];
}

// One partial sum per workgroup of 256: a tree in LDS with barriers.
extern "C" __global__ void block_sum(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t partial[256];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  partial[t] = in[GlobalId()];
  __builtin_amdgcn_s_barrier();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __builtin_amdgcn_s_barrier();
  }
  if (t == 0) out[__builtin_amdgcn_workgroup_id_x()] = partial[0];
}

// A 2-D grid: every work-item writes its flattened (x, y) coordinates.
extern "C" __global__ void coordinates(uint32_t* out, uint32_t width) {
  const unsigned x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  const unsigned y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + __builtin_amdgcn_workitem_id_y();
  out[y * width + x] = (y << 16) | x;
}

// Device-scope atomics from every work-item on one counter.
extern "C" __global__ void count_all(uint32_t* counter) {
  __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Stores through a pointer the test chooses (an unmapped one faults).
extern "C" __global__ void store_to(uint32_t* where) { where[__builtin_amdgcn_workitem_id_x()] = 7; }

// A dependent chain of f32 FMAs per work-item (compute-bound): the kernel benchmark's compute row.
extern "C" __global__ void fma_chain(float* out, unsigned iterations) {
  float v = static_cast<float>(__builtin_amdgcn_workitem_id_x());
  for (unsigned k = 0; k < iterations; ++k) v = __builtin_fmaf(v, 0.999f, 0.5f);
  out[GlobalId()] = v;
}
