// Kernels for memory_kernel_test.cc: LDS with barriers and dynamic shared memory, device atomics under contention,
// private arrays (scratch), generic pointers into LDS and global memory, and sub-dword accesses. Compiled by clang-19
// for each GFX9 target (no HIP headers: the kernel language builtins directly).
#include <stdint.h>

#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))

typedef int16_t short2_t __attribute__((ext_vector_type(2)));

// Every kernel here runs workgroups of kGroup work-items (the test launches them so), which spares them the
// implicit arguments.
constexpr unsigned kGroup = 256;

static __device__ inline unsigned GlobalId() {
  return __builtin_amdgcn_workgroup_id_x() * kGroup + __builtin_amdgcn_workitem_id_x();
}

// Per workgroup: the sum of its inputs, and the sum of squares, by a tree in dynamic LDS (two arrays of kGroup
// entries after a static variable: the launch sizes it through group_segment_size).
extern "C" __global__ void lds_reduce(const uint32_t* in, uint32_t* out) {
  extern __shared__ uint32_t dyn[];
  __shared__ uint32_t first;
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  const unsigned n = kGroup;
  const uint32_t v = in[GlobalId()];
  if (t == 0) first = v;
  dyn[t] = v;
  dyn[n + t] = v * v;
  __builtin_amdgcn_s_barrier();
  for (unsigned stride = n / 2; stride > 0; stride >>= 1) {
    if (t < stride) {
      dyn[t] += dyn[t + stride];
      dyn[n + t] += dyn[n + t + stride];
    }
    __builtin_amdgcn_s_barrier();
  }
  if (t == 0) {
    const unsigned g = __builtin_amdgcn_workgroup_id_x();
    out[3 * g] = dyn[0];
    out[3 * g + 1] = dyn[n];
    out[3 * g + 2] = first;
  }
}

struct AtomicTotals {
  uint32_t count;       // fetch_add(1) from every work-item
  uint32_t cas_count;   // incremented through a compare-exchange loop
  float fsum;           // float atomic add
  uint32_t max;         // atomic max of the ids
  uint32_t min;         // atomic min of the ids
  uint32_t bits[8];     // atomic or: bit (id % 256)
  uint32_t xor_all;     // atomic xor of every id
  uint32_t wrap;        // atomic inc with a wrap-around limit
  uint64_t sum64;       // 64-bit add
  double dsum;          // double atomic add
};

// Every work-item of the grid hits the same counters; `tickets[id]` receives fetch_add's returned value, which
// must be a permutation of 0..n-1.
extern "C" __global__ void contended_atomics(AtomicTotals* totals, uint32_t* tickets, uint32_t wrap_limit) {
  const unsigned id = GlobalId();
  tickets[id] = __hip_atomic_fetch_add(&totals->count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  uint32_t expected = __hip_atomic_load(&totals->cas_count, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (!__hip_atomic_compare_exchange_strong(&totals->cas_count, &expected, expected + 1, __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
  }
  __hip_atomic_fetch_add(&totals->fsum, 0.5f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(&totals->max, id, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&totals->min, id, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_or(&totals->bits[(id / 32) % 8], 1u << (id % 32), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_xor(&totals->xor_all, id, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __builtin_amdgcn_atomic_inc32(&totals->wrap, wrap_limit, __ATOMIC_RELAXED, "agent");
  __hip_atomic_fetch_add(&totals->sum64, uint64_t{id} << 20, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&totals->dsum, 0.25, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// A private array indexed by runtime values: scratch (MUBUF through the private segment buffer on gfx908/gfx90a,
// scratch_* instructions on gfx942).
extern "C" __global__ void private_array(const uint32_t* index, uint32_t* out) {
  uint32_t a[64];
  const unsigned id = GlobalId();
  for (int i = 0; i < 64; ++i) a[i] = i * 1000 + id;
  a[index[id] & 63] += 7;
  out[id] = a[index[id] & 63] + a[(index[id] >> 8) & 63];
}

// A generic pointer that is an LDS address in odd lanes and a global one in even lanes: flat loads, stores and
// atomics through both apertures.
extern "C" __global__ void generic_pointer(uint32_t* global, uint32_t* out) {
  __shared__ uint32_t local[256];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  local[t] = 1000 + t;
  __builtin_amdgcn_s_barrier();
  uint32_t* p = (t & 1) ? &local[t] : &global[t];
  *p += 5;
  __hip_atomic_fetch_add(p, 100u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __builtin_amdgcn_s_barrier();
  out[t] = *p;
}

// Byte and short loads and stores: sign and zero extension, through LDS, and two shorts packed into one register.
extern "C" __global__ void sub_dword(const int8_t* bytes, const int16_t* shorts, int32_t* widened, uint8_t* bytes_out,
                                     int16_t* shorts_out, short2_t* pairs) {
  __shared__ int16_t staged[256];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  widened[2 * t] = bytes[t];
  widened[2 * t + 1] = static_cast<uint16_t>(shorts[t]);
  bytes_out[t] = static_cast<uint8_t>(bytes[t] + 1);
  staged[255 - t] = shorts[t];
  __builtin_amdgcn_s_barrier();
  shorts_out[t] = static_cast<int16_t>(staged[t] * 2);
  short2_t pair;
  pair.x = shorts[t];
  pair.y = shorts[255 - t];
  pairs[t] = pair;
}
