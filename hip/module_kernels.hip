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

}  // extern "C"
