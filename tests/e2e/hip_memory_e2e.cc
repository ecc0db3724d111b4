// End to end, as a HIP user sees it: only <hip/hip_runtime_api.h>, only //hip:hipmem, no test
// framework. Exercises hipMalloc -> hipMemcpy (H2D, D2D, D2H) -> hipFree through every layer down
// to the simulated KFD, the hipMemGetInfo accounting, and the upstream error codes.
#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int g_passed = 0;
int g_failed = 0;

#define EXPECT_HIP(expected, call)                                                                   \
  do {                                                                                               \
    const hipError_t got_ = (call);                                                                  \
    if (got_ == (expected)) {                                                                        \
      ++g_passed;                                                                                    \
    } else {                                                                                         \
      ++g_failed;                                                                                    \
      std::printf("FAIL %s:%d: %s = %s, want %s\n", __FILE__, __LINE__, #call, hipGetErrorName(got_), \
                  hipGetErrorName(expected));                                                        \
    }                                                                                                \
  } while (0)

#define EXPECT_TRUE(cond)                                                  \
  do {                                                                     \
    if (cond) {                                                            \
      ++g_passed;                                                          \
    } else {                                                               \
      ++g_failed;                                                          \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);          \
    }                                                                      \
  } while (0)

void RoundTripThroughTwoDeviceBuffers() {
  constexpr size_t kBytes = 3 * 1024 * 1024 + 123;  // not a page multiple
  std::vector<unsigned char> in(kBytes), out(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);

  size_t free_start = 0, total = 0;
  EXPECT_HIP(hipSuccess, hipMemGetInfo(&free_start, &total));
  EXPECT_TRUE(free_start > 0 && free_start <= total);

  void* a = nullptr;
  void* b = nullptr;
  EXPECT_HIP(hipSuccess, hipMalloc(&a, kBytes));
  EXPECT_HIP(hipSuccess, hipMalloc(&b, kBytes));
  EXPECT_TRUE(a != nullptr && b != nullptr && a != b);
  EXPECT_TRUE(reinterpret_cast<uintptr_t>(a) % 256 == 0);  // hip-tests Unit_hipMalloc_Positive_Alignment

  size_t free_during = 0;
  EXPECT_HIP(hipSuccess, hipMemGetInfo(&free_during, &total));
  EXPECT_TRUE(free_start - free_during >= 2 * kBytes);

  EXPECT_HIP(hipSuccess, hipMemcpy(a, in.data(), kBytes, hipMemcpyHostToDevice));
  EXPECT_HIP(hipSuccess, hipMemcpy(b, a, kBytes, hipMemcpyDeviceToDevice));
  EXPECT_HIP(hipSuccess, hipMemcpy(out.data(), b, kBytes, hipMemcpyDeviceToHost));
  EXPECT_TRUE(std::memcmp(in.data(), out.data(), kBytes) == 0);

  // hipMemcpyDefault infers the direction; interior pointers resolve.
  std::vector<unsigned char> slice(4096, 0);
  EXPECT_HIP(hipSuccess, hipMemcpy(slice.data(), static_cast<char*>(b) + 1000, slice.size(), hipMemcpyDefault));
  EXPECT_TRUE(std::memcmp(slice.data(), in.data() + 1000, slice.size()) == 0);

  hipPointerAttribute_t attr;
  EXPECT_HIP(hipSuccess, hipPointerGetAttributes(&attr, static_cast<char*>(a) + 77));
  EXPECT_TRUE(attr.type == hipMemoryTypeDevice);
  EXPECT_TRUE(attr.device == 0);
  EXPECT_TRUE(attr.devicePointer == static_cast<char*>(a) + 77);

  EXPECT_HIP(hipSuccess, hipFree(a));
  EXPECT_HIP(hipSuccess, hipFree(b));
  size_t free_end = 0;
  EXPECT_HIP(hipSuccess, hipMemGetInfo(&free_end, &total));
  EXPECT_TRUE(free_end == free_start);
}

void PinnedHostMemory() {
  void* h = nullptr;
  EXPECT_HIP(hipSuccess, hipHostMalloc(&h, 8192, hipHostMallocDefault));
  std::memset(h, 0x5a, 8192);
  void* d = nullptr;
  EXPECT_HIP(hipSuccess, hipMalloc(&d, 8192));
  EXPECT_HIP(hipSuccess, hipMemcpy(d, h, 8192, hipMemcpyHostToDevice));
  std::vector<unsigned char> back(8192, 0);
  EXPECT_HIP(hipSuccess, hipMemcpy(back.data(), d, 8192, hipMemcpyDeviceToHost));
  EXPECT_TRUE(back[0] == 0x5a && back[8191] == 0x5a);
  hipPointerAttribute_t attr;
  EXPECT_HIP(hipSuccess, hipPointerGetAttributes(&attr, h));
  EXPECT_TRUE(attr.type == hipMemoryTypeHost && attr.hostPointer == h);
  EXPECT_HIP(hipErrorInvalidValue, hipHostMalloc(&h, 64, hipHostMallocCoherent | hipHostMallocNonCoherent));
  EXPECT_HIP(hipSuccess, hipHostFree(h));
  EXPECT_HIP(hipSuccess, hipFree(d));
}

void UpstreamErrorSemantics() {
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_HIP(hipSuccess, hipMalloc(&p, 0));
  EXPECT_TRUE(p == nullptr);
  EXPECT_HIP(hipErrorInvalidValue, hipMalloc(nullptr, 16));
  EXPECT_HIP(hipErrorOutOfMemory, hipMalloc(&p, static_cast<size_t>(-1)));
  EXPECT_HIP(hipSuccess, hipFree(nullptr));

  int on_stack = 0;
  EXPECT_HIP(hipErrorInvalidValue, hipFree(&on_stack));
  void* d = nullptr;
  EXPECT_HIP(hipSuccess, hipMalloc(&d, 64));
  EXPECT_HIP(hipSuccess, hipFree(d));
  EXPECT_HIP(hipErrorInvalidValue, hipFree(d));  // double free

  EXPECT_HIP(hipSuccess, hipMalloc(&d, 64));
  char host[128] = {};
  EXPECT_HIP(hipSuccess, hipMemcpy(d, host, 0, hipMemcpyHostToDevice));
  EXPECT_HIP(hipErrorInvalidValue, hipMemcpy(nullptr, host, 8, hipMemcpyHostToDevice));
  EXPECT_HIP(hipErrorInvalidMemcpyDirection, hipMemcpy(d, host, 8, static_cast<hipMemcpyKind>(7)));
  EXPECT_HIP(hipErrorInvalidValue, hipMemcpy(d, host, 128, hipMemcpyHostToDevice));  // past the end of d
  EXPECT_HIP(hipSuccess, hipMemcpy(d, d, 64, hipMemcpyDefault));
  EXPECT_HIP(hipSuccess, hipFree(d));

  // Unknown pointers are not an error: they are Unregistered.
  hipPointerAttribute_t attr;
  EXPECT_HIP(hipSuccess, hipPointerGetAttributes(&attr, &on_stack));
  EXPECT_TRUE(attr.type == hipMemoryTypeUnregistered && attr.device == hipInvalidDeviceId);
  EXPECT_HIP(hipErrorInvalidValue, hipPointerGetAttributes(nullptr, &on_stack));

  int count = 0, device = -1;
  EXPECT_HIP(hipSuccess, hipGetDeviceCount(&count));
  EXPECT_TRUE(count == 1);
  EXPECT_HIP(hipErrorInvalidDevice, hipSetDevice(count));
  EXPECT_HIP(hipSuccess, hipGetDevice(&device));
  EXPECT_TRUE(device == 0);

  // The last error is the previous call's result; Get resets it, Peek does not.
  EXPECT_HIP(hipErrorInvalidValue, hipFree(&on_stack));
  EXPECT_HIP(hipErrorInvalidValue, hipPeekAtLastError());
  EXPECT_HIP(hipErrorInvalidValue, hipGetLastError());
  EXPECT_HIP(hipSuccess, hipGetLastError());
  EXPECT_TRUE(std::strcmp(hipGetErrorName(hipErrorOutOfMemory), "hipErrorOutOfMemory") == 0);
}

}  // namespace

int main() {
  RoundTripThroughTwoDeviceBuffers();
  PinnedHostMemory();
  UpstreamErrorSemantics();
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
