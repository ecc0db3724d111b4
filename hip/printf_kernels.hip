// Device code for clr/kernel_printf_metadata_test.cc, built alone per target (--cuda-device-only): which kernels'
// metadata asks for the printf buffer (hidden_hostcall_buffer). C linkage, so they go by their plain names.
#include <hip/hip_runtime.h>

__device__ __noinline__ void printf_callee(int n) { printf("callee %d\n", n); }

extern "C" {

__global__ void prints_directly(int n) { printf("direct %d\n", n); }

__global__ void prints_in_a_callee(int n) { printf_callee(n); }

__global__ void never_prints(int* p) { p[threadIdx.x] = 1; }

}  // extern "C"
