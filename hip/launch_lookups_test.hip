// How many address lookups one kernel launch makes (issue #26: a copy, a fill and a kernel argument are resolved at
// most once, at the top). A launch hands its arguments to the GPU as bytes: like CLR, which at most finds each
// pointer argument's memory object once (KernelParameters::set) to track what the kernel may touch, it must never
// look one up more than once, and nothing below the launch may look any up again.
//
// Counted as memcpy_lookups_test counts copies (base/lookup_count.h: every layer's address query, on the calling
// thread): around the launch alone, after a first launch has made the stream's queue and loaded the code object.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <vector>

#include "base/lookup_count.h"
#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

constexpr int kN = 1024;

__global__ void scale_add(float* out, const float* in, const float* pinned, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + pinned[i];
}

TEST(LaunchLookups, EachPointerArgumentIsLookedUpAtMostOnce) {
  float* out = nullptr;
  float* in = nullptr;
  float* pinned = nullptr;
  ASSERT_HIP(hipMalloc(&out, kN * sizeof(float)));
  ASSERT_HIP(hipMalloc(&in, kN * sizeof(float)));
  ASSERT_HIP(hipHostMalloc(&pinned, kN * sizeof(float)));
  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) {
    host[i] = static_cast<float>(i);
    pinned[i] = 0.5f;
  }
  ASSERT_HIP(hipMemcpy(in, host.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  // First use: the stream's queue, the code object and the kernel's descriptor.
  scale_add<<<kN / 256, 256>>>(out, in, pinned, 1.0f, kN);
  ASSERT_HIP(hipDeviceSynchronize());

  constexpr uint64_t kPointerArguments = 3;
  for (int round = 0; round < 4; ++round) {
    const uint64_t before = hipmem::AddressLookupsOnThisThread();
    scale_add<<<kN / 256, 256>>>(out, in, pinned, 2.0f, kN);
    const uint64_t lookups = hipmem::AddressLookupsOnThisThread() - before;
    ASSERT_HIP(hipGetLastError());
    EXPECT_LE(lookups, kPointerArguments) << "round " << round;
    RecordProperty("lookups", static_cast<int>(lookups));
    ASSERT_HIP(hipDeviceSynchronize());
  }
  // The launches ran with the arguments they were given.
  ASSERT_HIP(hipMemcpy(host.data(), out, kN * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(host[i], 2.0f * static_cast<float>(i) + 0.5f) << "element " << i;

  ASSERT_HIP(hipFree(out));
  ASSERT_HIP(hipFree(in));
  ASSERT_HIP(hipHostFree(pinned));
}

}  // namespace
