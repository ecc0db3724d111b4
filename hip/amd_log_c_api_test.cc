// AMD_LOG_LEVEL=3 (set by this test's BUILD target, so the log sink is installed before main as in any process):
// every hip* call prints when it starts, with its arguments, and prints its result when it ends, as CLR's log does, and nothing below
// the API prints at level 3. The HIP_TRACE_API target runs the same checks with that switch instead.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hip/hip_runtime_api.h"

namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(AmdLogLevelTest, EachHipCallPrintsItselfAndWhatItReturned) {
  ASSERT_EQ(hipInit(0), hipSuccess);  // the runtime's start-up is not what this test reads
  ::testing::internal::CaptureStderr();
  void* p = nullptr;
  const hipError_t good = hipMalloc(&p, 4096);
  const hipError_t bad = hipMalloc(nullptr, 4096);
  const hipError_t freed = hipFree(p);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(good, hipSuccess);
  ASSERT_EQ(bad, hipErrorInvalidValue);
  ASSERT_EQ(freed, hipSuccess);

  // The entry line carries the arguments as CLR's HIP_INIT_API prints them: pointers as addresses.
  const std::string out_arg = absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(&p)));
  EXPECT_THAT(log, ContainsRegex(":3:hip_api *: [0-9]+ us: [0-9]+ : \\[tid:0x[0-9a-f]+\\] hipMalloc \\( " + out_arg +
                                     ", 4096 \\)\n"));
  EXPECT_THAT(log, HasSubstr("] hipMalloc ( 0x0, 4096 )\n"));
  EXPECT_THAT(log, HasSubstr(absl::StrCat("] hipFree ( 0x", absl::Hex(reinterpret_cast<uintptr_t>(p)), " )\n")));
  EXPECT_THAT(log, HasSubstr("] hipMalloc: Returned hipSuccess\n"));
  EXPECT_THAT(log, HasSubstr("] hipMalloc: Returned hipErrorInvalidValue\n"));
  EXPECT_THAT(log, HasSubstr("] hipFree: Returned hipSuccess\n"));
  // The calls in order: the good hipMalloc's result before the bad one's, the free last.
  EXPECT_LT(log.find("hipMalloc: Returned hipSuccess"), log.find("hipMalloc: Returned hipErrorInvalidValue"));
  EXPECT_LT(log.find("hipMalloc: Returned hipErrorInvalidValue"), log.find("hipFree: Returned"));
  // Level 3 is the API; the layers below print at level 4.
  EXPECT_THAT(log, Not(HasSubstr(":4:")));
}

}  // namespace
