// __managed__ variables of a HIP program: one allocation of managed memory that the host reaches through the
// variable's name and every kernel (on every device) through its own, with the initial value clang gives it.
#include <hip/hip_runtime.h>

#include <cstdint>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

__managed__ int counter = 40;
__managed__ double samples[256];

__global__ void bump(int by) { atomicAdd(&counter, by); }

__global__ void fill_samples(double base) { samples[threadIdx.x] = base + threadIdx.x; }

__global__ void sum_samples(double* out) {
  if (threadIdx.x == 0) {
    double sum = 0;
    for (int i = 0; i < 256; ++i) sum += samples[i];
    *out = sum;
  }
}

TEST(ManagedVariables, HostAndKernelsShareOneValue) {
  // The initial value, before any kernel ran.
  EXPECT_EQ(counter, 40);
  counter += 2;  // a host write before the first launch reaches the kernel
  bump<<<4, 64>>>(1);
  ASSERT_HIP(hipDeviceSynchronize());
  EXPECT_EQ(counter, 42 + 256);
  // The host writes, the kernel adds, the host reads: no copies.
  counter = 1000;
  bump<<<1, 10>>>(3);
  ASSERT_HIP(hipDeviceSynchronize());
  EXPECT_EQ(counter, 1030);
  // The address is managed memory, the same for the host and the GPUs.
  hipPointerAttribute_t attr{};
  ASSERT_HIP(hipPointerGetAttributes(&attr, &counter));
  EXPECT_EQ(attr.type, hipMemoryTypeManaged);
  EXPECT_EQ(attr.devicePointer, static_cast<void*>(&counter));
}

TEST(ManagedVariables, ArraysWrittenByOneKernelAreReadByTheHostAndAnother) {
  fill_samples<<<1, 256>>>(0.5);
  ASSERT_HIP(hipDeviceSynchronize());
  double expected = 0;
  for (int i = 0; i < 256; ++i) {
    ASSERT_EQ(samples[i], 0.5 + i) << i;
    expected += samples[i];
  }
  samples[7] = -100.0;
  expected += -100.0 - (0.5 + 7);
  double* out = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&out), sizeof(double)));
  sum_samples<<<1, 64>>>(out);
  double sum = 0;
  ASSERT_HIP(hipMemcpy(&sum, out, sizeof(sum), hipMemcpyDeviceToHost));
  EXPECT_EQ(sum, expected);
  ASSERT_HIP(hipFree(out));
}

TEST(ManagedVariables, EveryDeviceSeesTheSameVariable) {
  int count = 0;
  ASSERT_HIP(hipGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "one device";
  counter = 0;
  for (int d = 0; d < count; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    bump<<<1, 32>>>(d + 1);
    ASSERT_HIP(hipDeviceSynchronize());
  }
  int expected = 0;
  for (int d = 0; d < count; ++d) expected += 32 * (d + 1);
  EXPECT_EQ(counter, expected);
  ASSERT_HIP(hipSetDevice(0));
}

}  // namespace
