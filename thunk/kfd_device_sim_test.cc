// The default simulated machine when HIPMEM_SIM_PRESET names no preset: BUILD sets it to
// "no-such-machine" for this binary.
#include <memory>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "testing/status_matchers.h"
#include "thunk/default_kfd_device.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(SimMachineTest, UnknownPresetInTheEnvironmentIsInvalidArgumentListingThePresets) {
  EXPECT_THAT(SimMachine::Default(),
              StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr("HIPMEM_SIM_PRESET=no-such-machine"),
                                                                 HasSubstr("mi300x"), HasSubstr("8xmi300x"))));
  EXPECT_THAT(SimMachine::Default(), StatusIs(absl::StatusCode::kInvalidArgument)) << "on every call";
}

TEST(SimMachineTest, UnknownPresetFailsTheSimulatedOpen) {
  EXPECT_THAT(OpenDefaultKfdDevice(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("HIPMEM_SIM_PRESET")));
  EXPECT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_INVALID_PARAMETER);
}

}  // namespace
}  // namespace hipmem::thunk
