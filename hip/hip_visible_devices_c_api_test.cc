// HIP_VISIBLE_DEVICES as a HIP program sees it on 2xmi250x (two GCDs); the BUILD target sets the variable.
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

TEST(HipVisibleDevicesCApi, ProgramSeesOnlyTheListedDevices) {
  const char* env = std::getenv("HIP_VISIBLE_DEVICES");
  const std::string list = env == nullptr ? "" : env;
  int count = -1;
  if (list == "-1") {
    EXPECT_EQ(hipGetDeviceCount(&count), hipErrorNoDevice) << "every GPU hidden";
    void* p = nullptr;
    EXPECT_EQ(hipMalloc(&p, 64), hipErrorNoDevice);
    return;
  }
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  ASSERT_EQ(count, 1) << "HIP_VISIBLE_DEVICES=" << list;
  EXPECT_EQ(hipSetDevice(1), hipErrorInvalidDevice);
  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, 1 << 20), hipSuccess);
  int ordinal = -1;
  ASSERT_EQ(hipPointerGetAttribute(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p), hipSuccess);
  EXPECT_EQ(ordinal, 0);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

}  // namespace
