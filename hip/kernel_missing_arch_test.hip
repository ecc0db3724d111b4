// A program built only for gfx942 (MI300X), launched on an MI100 (gfx908): no code object of its fat binary fits any
// device of the process. Current CLR answers the launch with the fat binary's own error, hipErrorInvalidImage, leaves
// it as the last error, and the device stays usable.
#include <hip/hip_runtime.h>

#include "gtest/gtest.h"

namespace {

__global__ void Store(int* out, int value) { *out = value; }

TEST(KernelMissingArchTest, ALaunchWithNoCodeObjectForAnyDeviceIsAnInvalidImage) {
  int* out = nullptr;
  ASSERT_EQ(hipMalloc(&out, sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemset(out, 0, sizeof(int)), hipSuccess);
  hipLaunchKernelGGL(Store, dim3(1), dim3(1), 0, 0, out, 7);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidImage);
  EXPECT_EQ(hipGetLastError(), hipSuccess);  // not sticky: the device is fine
  // Nothing ran, and the device still copies.
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  int host = -1;
  ASSERT_EQ(hipMemcpy(&host, out, sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(host, 0);
  // The answer stays the same on a second try (the outcome of the first load is kept).
  hipLaunchKernelGGL(Store, dim3(1), dim3(1), 0, 0, out, 8);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidImage);
  EXPECT_EQ(hipFree(out), hipSuccess);
}

}  // namespace
