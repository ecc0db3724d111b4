// DeviceLimits: CLR's defaults, bounds and error codes per hipLimit_t, kept per device (hip_device_runtime.cpp's
// hipDeviceGetLimit / hipDeviceSetLimit over rocclr/device/device.cpp's UpdateStackSize / UpdateInitialHeapSize).
#include "hip/device_limits.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;

constexpr size_t kGlobal = size_t{64} << 30;

// Two gfx9 devices with 64 GiB of global memory each.
DeviceLimits TwoDevices() {
  const DeviceLimits::Bounds b{DeviceLimits::MaxStackSizeFor(9), kGlobal};
  return DeviceLimits({b, b});
}

TEST(DeviceLimitsTest, DefaultsAreRocclrs) {
  DeviceLimits limits = TwoDevices();
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(1024u));
  EXPECT_THAT(limits.Get(1, hipLimitMallocHeapSize), IsOkAndHolds(8u << 20));
}

TEST(DeviceLimitsTest, ValuesAreKeptPerDevice) {
  DeviceLimits limits = TwoDevices();
  ASSERT_THAT(limits.Set(1, hipLimitStackSize, 4096), IsOk());
  ASSERT_THAT(limits.Set(0, hipLimitMallocHeapSize, 3 << 20), IsOk());
  EXPECT_THAT(limits.Get(1, hipLimitStackSize), IsOkAndHolds(4096u));
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(1024u));
  EXPECT_THAT(limits.Get(0, hipLimitMallocHeapSize), IsOkAndHolds(3u << 20)) << "kept unrounded";
  EXPECT_THAT(limits.Get(1, hipLimitMallocHeapSize), IsOkAndHolds(8u << 20));
}

TEST(DeviceLimitsTest, StackCeilingFollowsTheIsaAsRocclrsGetMaxStackSize) {
  struct Row {
    uint32_t gfx_major;
    size_t max;
  };
  constexpr Row kRows[] = {{8, 131004}, {9, 131004}, {10, 262072}, {11, 262072}, {12, 2097080}};
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.gfx_major);
    EXPECT_EQ(DeviceLimits::MaxStackSizeFor(row.gfx_major), row.max);
  }
}

TEST(DeviceLimitsTest, StackSizeIsBoundedPerDeviceAndRoundedUpTo16) {
  DeviceLimits limits({{DeviceLimits::MaxStackSizeFor(9), kGlobal}, {DeviceLimits::MaxStackSizeFor(11), kGlobal}});
  EXPECT_THAT(limits.Set(0, hipLimitStackSize, 131004), IsOk());
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(131008u)) << "rounded up to 16 bytes";
  EXPECT_EQ(ToHipError(limits.Set(0, hipLimitStackSize, 131005)), hipErrorInvalidValue);
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(131008u)) << "a failed set changes nothing";
  EXPECT_THAT(limits.Set(1, hipLimitStackSize, 131005), IsOk()) << "gfx11's wave32 stack is twice as deep";
  EXPECT_EQ(ToHipError(limits.Set(1, hipLimitStackSize, 262073)), hipErrorInvalidValue);
  // hip-tests' Unit_hipDeviceSetLimit_Positive_StackSize: old + 8 reads back as at least old + 8.
  ASSERT_THAT(limits.Set(0, hipLimitStackSize, 1024 + 8), IsOk());
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(1040u));
  EXPECT_THAT(limits.Set(0, hipLimitStackSize, 0), IsOk());
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(0u));
}

TEST(DeviceLimitsTest, HeapSizeMustStayBelowGlobalMemory) {
  DeviceLimits limits = TwoDevices();
  EXPECT_EQ(ToHipError(limits.Set(0, hipLimitMallocHeapSize, kGlobal)), hipErrorInvalidValue);
  EXPECT_THAT(limits.Get(0, hipLimitMallocHeapSize), IsOkAndHolds(8u << 20)) << "a failed set changes nothing";
  EXPECT_THAT(limits.Set(0, hipLimitMallocHeapSize, kGlobal - 1), IsOk());
  EXPECT_THAT(limits.Get(0, hipLimitMallocHeapSize), IsOkAndHolds(kGlobal - 1));
}

TEST(DeviceLimitsTest, ErrorCodesPerLimitAsClr) {
  DeviceLimits limits = TwoDevices();
  struct Row {
    uint32_t limit;
    hipError_t get;
    hipError_t set;
  };
  constexpr Row kRows[] = {
      {hipLimitPrintfFifoSize, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {3, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      // hip-tests' Unit_hipDeviceGetSetLimit_Scratch_Negative: min and max cannot be set.
      {hipExtLimitScratchMin, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {hipExtLimitScratchMax, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {hipExtLimitScratchCurrent, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {hipLimitRange, hipErrorInvalidValue, hipErrorInvalidValue},
      {0x7fffffffu, hipErrorInvalidValue, hipErrorInvalidValue},
      // static_cast<hipLimit_t>(-1): hipamd compares as int, so it is below the range and unsupported
      // (hip-tests' Unit_hipDeviceSetLimit_Negative_Parameters / Unit_hipDeviceGetLimit_Negative_Parameters).
      {0xffffffffu, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {0x80000000u, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.limit);
    EXPECT_EQ(ToHipError(limits.Get(0, row.limit).status()), row.get);
    EXPECT_EQ(ToHipError(limits.Set(0, row.limit, 1)), row.set);
  }
}

}  // namespace
}  // namespace hipmem::hip
