// Device code for hip/kernel_module_test.cc, built alone (--cuda-device-only) into an offload bundle that the test
// loads with hipModuleLoad / hipModuleLoadData: C linkage, so the kernels and variables go by their plain names.
#include <hip/hip_runtime.h>

extern "C" {

__device__ int module_counter;
__constant__ float module_scale[4];

__global__ void module_axpy(float a, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] * module_scale[i % 4];
}

__global__ void module_count(int by) { atomicAdd(&module_counter, by); }

// For hipModuleLaunchCooperativeKernel: two rounds in which each block writes its slot, waits at a grid-wide GWS
// barrier (its first wave; the count is the grid's blocks less one, as ockl's grid sync passes it), and reads the next
// block's slot, which only a barrier over every block of the grid guarantees is written (and not yet overwritten). The GWS exists only on the
// cooperative queue.
__global__ void module_grid_rounds(int* slots, int* seen) {
  const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  for (int round = 1; round <= 2; ++round) {
    if (threadIdx.x == 0) {
      __hip_atomic_store(&slots[b], round * 10000 + static_cast<int>(b), __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
      __builtin_amdgcn_ds_gws_barrier(blocks - 1, 0);
      seen[(round - 1) * blocks + b] =
          __hip_atomic_load(&slots[(b + 1) % blocks], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
      // And again before the next round's write, which must not overtake this round's read of the next block.
      __builtin_amdgcn_ds_gws_barrier(blocks - 1, 0);
    }
    __syncthreads();
  }
}

}  // extern "C"
