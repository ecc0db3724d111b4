// The op-sequence fuzzer's steady-state check (fuzz_steady_state.h) fails on a leak the simulated kernel cannot see:
// a small hipMalloc left alive inside the 2 MiB block the runtime already holds.
#include "hip/fuzz_steady_state.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"
#include "testing/kfd_sim/fault_injection.h"

namespace {

using ::hipmem::hip_fuzz::CaptureSteadyState;
using ::hipmem::hip_fuzz::SteadyState;
using ::hipmem::hip_fuzz::SteadyStateGrew;
using ::hipmem::kfd_sim::UsageAtMost;
using ::hipmem::kfd_sim::UsageOf;

class FuzzSteadyStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipInit(0), hipSuccess);
    // The block small allocations are carved from: held by the runtime from here on.
    ASSERT_EQ(hipMalloc(&holder_, 256), hipSuccess);
  }
  void TearDown() override { EXPECT_EQ(hipFree(holder_), hipSuccess); }

  void* holder_ = nullptr;
};

TEST_F(FuzzSteadyStateTest, ALeakInsideAHeldBlockIsSeenByTheRuntimeCountAlone) {
  const SteadyState first = CaptureSteadyState();
  void* leaked = nullptr;
  ASSERT_EQ(hipMalloc(&leaked, 256), hipSuccess);
  const SteadyState second = CaptureSteadyState();
  // The blind spot: the kernel holds no more than before (the allocation is inside the held block)...
  EXPECT_TRUE(UsageAtMost(UsageOf(second.kernel), UsageOf(first.kernel)));
  // ...and the check fails all the same, on the runtime's count.
  const std::optional<std::string> grew = SteadyStateGrew(first, second);
  ASSERT_TRUE(grew.has_value());
  EXPECT_NE(grew->find("memory objects: " + std::to_string(first.runtime_objects + 1)), std::string::npos) << *grew;
  ASSERT_EQ(hipFree(leaked), hipSuccess);
  EXPECT_EQ(SteadyStateGrew(first, CaptureSteadyState()), std::nullopt);
}

TEST_F(FuzzSteadyStateTest, AKernelBufferMoreFailsTheCheck) {
  const SteadyState first = CaptureSteadyState();
  void* big = nullptr;
  ASSERT_EQ(hipMalloc(&big, 64 << 20), hipSuccess);  // its own KFD buffer
  const std::optional<std::string> grew = SteadyStateGrew(first, CaptureSteadyState());
  ASSERT_TRUE(grew.has_value());
  EXPECT_NE(grew->find("the simulated kernel holds more"), std::string::npos) << *grew;
  ASSERT_EQ(hipFree(big), hipSuccess);
}

TEST_F(FuzzSteadyStateTest, FewerObjectsAfterTheSecondRunPass) {
  void* extra = nullptr;
  ASSERT_EQ(hipMalloc(&extra, 256), hipSuccess);
  const SteadyState first = CaptureSteadyState();
  ASSERT_EQ(hipFree(extra), hipSuccess);
  EXPECT_EQ(SteadyStateGrew(first, CaptureSteadyState()), std::nullopt);
}

}  // namespace
