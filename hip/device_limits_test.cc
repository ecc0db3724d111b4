// DeviceLimits: CLR's defaults, bounds and error codes per hipLimit_t, kept per device.
#include "hip/device_limits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;

TEST(DeviceLimitsTest, DefaultsAreRocclrs) {
  DeviceLimits limits(2);
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(1024u));
  EXPECT_THAT(limits.Get(1, hipLimitMallocHeapSize), IsOkAndHolds(8u << 20));
}

TEST(DeviceLimitsTest, ValuesAreKeptPerDevice) {
  DeviceLimits limits(2);
  ASSERT_THAT(limits.Set(1, hipLimitStackSize, 4096), IsOk());
  ASSERT_THAT(limits.Set(0, hipLimitMallocHeapSize, 3 << 20), IsOk());
  EXPECT_THAT(limits.Get(1, hipLimitStackSize), IsOkAndHolds(4096u));
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(1024u));
  EXPECT_THAT(limits.Get(0, hipLimitMallocHeapSize), IsOkAndHolds(3u << 20)) << "kept unrounded";
  EXPECT_THAT(limits.Get(1, hipLimitMallocHeapSize), IsOkAndHolds(8u << 20));
}

TEST(DeviceLimitsTest, StackSizeIsBoundedByTheWaveScratchField) {
  DeviceLimits limits(1);
  EXPECT_THAT(limits.Set(0, hipLimitStackSize, DeviceLimits::kMaxStackSize), IsOk());
  EXPECT_EQ(ToHipError(limits.Set(0, hipLimitStackSize, DeviceLimits::kMaxStackSize + 1)), hipErrorInvalidValue);
  EXPECT_THAT(limits.Get(0, hipLimitStackSize), IsOkAndHolds(DeviceLimits::kMaxStackSize)) << "failed set changes nothing";
}

TEST(DeviceLimitsTest, ErrorCodesPerLimitAsClr) {
  DeviceLimits limits(1);
  struct Row {
    uint32_t limit;
    hipError_t get;
    hipError_t set;
  };
  constexpr Row kRows[] = {
      {hipLimitPrintfFifoSize, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {3, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {hipExtLimitScratchMin, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {hipExtLimitScratchCurrent, hipErrorUnsupportedLimit, hipErrorUnsupportedLimit},
      {hipLimitRange, hipErrorInvalidValue, hipErrorInvalidValue},
      {0xffffffffu, hipErrorInvalidValue, hipErrorInvalidValue},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.limit);
    EXPECT_EQ(ToHipError(limits.Get(0, row.limit).status()), row.get);
    EXPECT_EQ(ToHipError(limits.Set(0, row.limit, 1)), row.set);
  }
}

}  // namespace
}  // namespace hipmem::hip
