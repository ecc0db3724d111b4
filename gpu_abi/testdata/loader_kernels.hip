// Device code for the loader's tests (hsa/executable_test.cc): kernels with different argument lists and
// resources, and a __device__ global the kernels reach through a relocated GOT entry.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

// A device global with an initial value: lives in .data of the code object; the kernels address it through
// the GOT, which the loader relocates (R_AMDGPU_ABS64 / RELATIVE64) against the load base.
__device__ int loader_counter = 42;
__device__ int loader_table[64] = {1, 2, 3, 4};
// Zero-initialised: .bss, which the loader must clear.
__device__ unsigned long long loader_zeroes[512];
// A pointer to another global: a data relocation the loader applies.
__device__ int* loader_counter_ptr = &loader_counter;

extern "C" __global__ void loader_add_one(int* out, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = out[i] + 1 + loader_counter;
}

extern "C" __global__ void loader_uses_lds(float* out, const float* in, unsigned n) {
  __shared__ float tile[256];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  tile[t] = in[t];
  __builtin_amdgcn_s_barrier();
  if (t < n) out[t] = tile[255 - t] + static_cast<float>(loader_table[t & 63]);
}

extern "C" __global__ void loader_bump_global() { *loader_counter_ptr += 1; }
