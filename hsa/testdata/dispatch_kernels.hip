// Kernels a plain HSA program dispatches through AQL queues (hsa_dispatch_c_api_test.cc): one of each kind the
// GFX9 engine must run. Compiled by clang-19 for gfx908, gfx90a and gfx942, code objects v4 and v5.
#include <stdint.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

static __device__ inline unsigned Gid() {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
}

// Memory-bound: c = a + b.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, unsigned n) {
  const unsigned i = Gid();
  if (i < n) c[i] = a[i] + b[i];
}

// f32 FMA: y = a * x + y.
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
  const unsigned i = Gid();
  if (i < n) y[i] = __builtin_fmaf(a, x[i], y[i]);
}

// LDS tree reduction with barriers: one sum per workgroup of 256.
extern "C" __global__ void block_sum(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t partial[256];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  partial[t] = in[Gid()];
  __builtin_amdgcn_s_barrier();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __builtin_amdgcn_s_barrier();
  }
  if (t == 0) out[__builtin_amdgcn_workgroup_id_x()] = partial[0];
}

// Dynamic group memory: each workgroup reverses its slice through LDS sized at launch.
extern "C" __global__ void reverse_block(const uint32_t* in, uint32_t* out) {
  extern __shared__ uint32_t tile[];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  const unsigned n = __builtin_amdgcn_workgroup_size_x();
  tile[t] = in[Gid()];
  __builtin_amdgcn_s_barrier();
  out[Gid()] = tile[n - 1 - t];
}

// A 3-D grid: every work-item writes its global coordinates.
extern "C" __global__ void coordinates(uint32_t* out, uint32_t width, uint32_t height) {
  const unsigned x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  const unsigned y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + __builtin_amdgcn_workitem_id_y();
  const unsigned z = __builtin_amdgcn_workgroup_id_z() * __builtin_amdgcn_workgroup_size_z() + __builtin_amdgcn_workitem_id_z();
  out[(z * height + y) * width + x] = (z << 20) | (y << 10) | x;
}

// Device-scope atomics from every work-item.
extern "C" __global__ void count_all(uint32_t* counter) {
  __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// A compare-and-swap loop: the maximum of all inputs.
extern "C" __global__ void atomic_max_cas(const uint32_t* in, uint32_t* result, unsigned n) {
  const unsigned i = Gid();
  if (i >= n) return;
  uint32_t v = in[i];
  uint32_t seen = __hip_atomic_load(result, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (seen < v &&
         !__hip_atomic_compare_exchange_strong(result, &seen, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                              __HIP_MEMORY_SCOPE_AGENT)) {
  }
}

// Double precision: out = sqrt(x) / 3 + x * x.
extern "C" __global__ void double_math(const double* x, double* out, unsigned n) {
  const unsigned i = Gid();
  if (i < n) out[i] = __builtin_sqrt(x[i]) / 3.0 + x[i] * x[i];
}

// A dependent chain of f32 FMAs (compute-bound).
extern "C" __global__ void fma_chain(float* out, unsigned iterations) {
  float v = static_cast<float>(__builtin_amdgcn_workitem_id_x());
  for (unsigned k = 0; k < iterations; ++k) v = __builtin_fmaf(v, 0.999f, 0.5f);
  out[Gid()] = v;
}

// A private array indexed at run time (scratch).
extern "C" __global__ void private_array(const uint32_t* index, uint32_t* out) {
  uint32_t table[64];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  for (unsigned k = 0; k < 64; ++k) table[k] = k * 3 + t;
  out[Gid()] = table[index[Gid()] & 63];
}

// A volatile private array of 256 dwords (1 KiB per work-item): every element is stored to the queue's scratch and
// stays there after the kernel, (work-item << 12) | element, for the test to find.
extern "C" __global__ void private_trace(const uint32_t* index, uint32_t* out) {
  volatile uint32_t table[256];
  const uint32_t id = Gid();
  for (unsigned k = 0; k < 256; ++k) table[k] = (id << 12) | k;
  out[id] = table[index[id] & 255];
}

// Cross-lane: every lane reads the first lane's value and counts the lanes below it (mbcnt).
extern "C" __global__ void wave_broadcast(const uint32_t* in, uint32_t* out) {
  const uint32_t v = in[Gid()];
  const uint32_t first = __builtin_amdgcn_readfirstlane(v);
  const uint32_t lanes = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  out[Gid()] = first + lanes;
}

// Stores through a pointer the caller chooses: an unmapped one is a VM fault.
extern "C" __global__ void store_to(uint32_t* where) { where[__builtin_amdgcn_workitem_id_x()] = 7; }

// Every lane stores, then llvm.trap (s_trap 2, what HIP's abort() and a failed device assert become): the queue goes
// into the error state with HSA_STATUS_ERROR_EXCEPTION.
extern "C" __global__ void trap_after_store(uint32_t* out) {
  out[__builtin_amdgcn_workitem_id_x()] = 7;
  __builtin_trap();
}

// llvm.debugtrap (s_trap 3): without a debugger it does nothing, and the kernel completes.
extern "C" __global__ void debugtrap_then_store(uint32_t* out) {
  __builtin_debugtrap();
  out[__builtin_amdgcn_workitem_id_x()] = 9;
}

// ds_gws_init on a queue with no global wave sync allocation: an illegal instruction, reported as one.
extern "C" __global__ void gws_without_allocation(uint32_t* out) {
  __builtin_amdgcn_ds_gws_init(out[0], 0);
  out[1] = 1;
}

// A grid barrier, as a cooperative launch's grid sync: each workgroup's first work-item counts its arrival, then waits
// for every workgroup's; then every work-item writes the count it saw. Finishes only when all of the grid's
// workgroups are resident at once.
extern "C" __global__ void grid_barrier(uint32_t* arrived, uint32_t* out, uint32_t groups) {
  if (__builtin_amdgcn_workitem_id_x() == 0) {
    __hip_atomic_fetch_add(arrived, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    while (__hip_atomic_load(arrived, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) < groups) {
      __builtin_amdgcn_s_sleep(1);
    }
  }
  __builtin_amdgcn_s_barrier();
  out[Gid()] = __hip_atomic_load(arrived, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
