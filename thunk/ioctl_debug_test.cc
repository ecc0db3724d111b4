// HSAKMT_DEBUG_LEVEL=7 (set by this test's BUILD target) prints every KFD ioctl decoded to stderr.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::testing::HasSubstr;

TEST(IoctlDebugTest, DebugLevelSevenPrintsDecodedIoctlsAndFailures) {
  ASSERT_TRUE(IoctlDebugEnabled());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<SimMachine> machine, SimMachine::Create(kfd_sim::DefaultTopology()));
  ::testing::internal::CaptureStderr();
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Kfd> kfd, Kfd::Open(std::move(device)));
    ASSERT_OK_AND_ASSIGN(DeviceAddress p, Unowned(kfd->AllocMemory(NodeId(1), Bytes::KiB(4), MemFlags::kNonPaged)));
    ASSERT_TRUE(kfd->FreeMemory(p).ok());
    kfd_uapi::FreeMemoryOfGpuArgs stale{0x1e6a00000fffull};
    EXPECT_FALSE(Ioctl(kfd->device(), kfd_uapi::kFreeMemoryOfGpu, stale).ok());
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("[hsakmt] AMDKFD_IOC_GET_VERSION(major=0, minor=0) = 0 -> major=1, minor=17"));
  EXPECT_THAT(err, HasSubstr("[hsakmt] AMDKFD_IOC_ALLOC_MEMORY_OF_GPU(va=0x"));
  EXPECT_THAT(err, HasSubstr("[hsakmt] AMDKFD_IOC_FREE_MEMORY_OF_GPU(handle=0x1e6a00000fff) = -22"));
}

}  // namespace
}  // namespace hipmem::thunk
