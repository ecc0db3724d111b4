// A kernel on hip::device (clang in HIP mode): each thread writes its global index plus one; the host checks.
#include <hip/hip_runtime.h>

#include <cstdio>

__global__ void Iota(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i + 1;
}

int main() {
  constexpr int kN = 1000;
  int* d = nullptr;
  if (hipMalloc(&d, kN * sizeof(int)) != hipSuccess) return 1;
  Iota<<<(kN + 255) / 256, 256>>>(d, kN);
  if (hipGetLastError() != hipSuccess) return 1;
  int h[kN] = {};
  if (hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost) != hipSuccess) return 1;
  hipFree(d);
  for (int i = 0; i < kN; ++i) {
    if (h[i] != i + 1) {
      std::fprintf(stderr, "out[%d] = %d\n", i, h[i]);
      return 1;
    }
  }
  std::printf("hip_kernel: %d threads ok\n", kN);
  return 0;
}
