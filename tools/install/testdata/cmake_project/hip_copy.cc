// Host code on hip::host: a round trip host -> device -> device -> host through the HIP runtime.
#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t e = (call);                                                            \
    if (e != hipSuccess) {                                                            \
      std::fprintf(stderr, "%s failed: %s\n", #call, hipGetErrorString(e));           \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main() {
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  hipDeviceProp_t props;
  CHECK(hipGetDeviceProperties(&props, 0));
  constexpr size_t kBytes = 1 << 20;
  std::vector<unsigned char> in(kBytes), out(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<unsigned char>(i * 7 + 3);
  void* a = nullptr;
  void* b = nullptr;
  CHECK(hipMalloc(&a, kBytes));
  CHECK(hipMalloc(&b, kBytes));
  CHECK(hipMemcpy(a, in.data(), kBytes, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(b, a, kBytes, hipMemcpyDeviceToDevice));
  CHECK(hipMemcpy(out.data(), b, kBytes, hipMemcpyDeviceToHost));
  CHECK(hipFree(a));
  CHECK(hipFree(b));
  if (std::memcmp(in.data(), out.data(), kBytes) != 0) {
    std::fprintf(stderr, "round trip changed the bytes\n");
    return 1;
  }
  std::printf("hip_copy: %d device(s), %s (%s), 1 MiB round trip ok\n", count, props.name, props.gcnArchName);
  return 0;
}
