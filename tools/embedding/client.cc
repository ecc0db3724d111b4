#include <hip/hip_runtime_api.h>
#include <cstdio>
int main() {
  void* p = nullptr;
  if (hipMalloc(&p, 1 << 20) != hipSuccess) return 1;
  char buf[16] = "hello";
  if (hipMemcpy(p, buf, sizeof buf, hipMemcpyHostToDevice) != hipSuccess) return 2;
  char out[16] = {};
  if (hipMemcpy(out, p, sizeof out, hipMemcpyDeviceToHost) != hipSuccess) return 3;
  std::printf("embedded: %s %s\n", out, hipGetErrorName(hipFree(p)));
  return 0;
}
