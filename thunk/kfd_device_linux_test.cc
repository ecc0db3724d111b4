// The Linux backend's libdrm calls on the machine the test runs on. Build machines have no GPU and
// usually no /dev/dri: these tests check that discovery then fails cleanly, with the errno, and leaks
// nothing. Where a render node exists the open case is skipped, so no test touches a GPU.
#include "thunk/kfd_device_linux.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "thunk/drm_render_nodes.h"
#include "thunk/errno_status.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

bool Exists(const char* path) { return access(path, F_OK) == 0; }

// The number of descriptors this process has open.
size_t OpenFdCount() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

TEST(ListDrmDevicesTest, ReportsTheMachinesDevicesOrWhyNot) {
  const absl::StatusOr<std::vector<DrmDeviceInfo>> devices = ListDrmDevices();
  if (!Exists("/dev/dri")) {
    // libdrm cannot open the directory it scans: ENOENT, not a crash and not a fabricated device.
    EXPECT_THAT(devices, StatusIs(absl::StatusCode::kNotFound, HasSubstr("drmGetDevices2")));
    EXPECT_EQ(ErrnoOf(devices.status()), ENOENT);
    return;
  }
  ASSERT_TRUE(devices.ok()) << devices.status();
  for (const DrmDeviceInfo& device : *devices) {
    if (device.render_minor.has_value()) {
      EXPECT_GE(*device.render_minor, kFirstRenderMinor);
    }
  }
}

TEST(ListDrmDevicesTest, RepeatedListingLeaksNoDescriptor) {
  const size_t before = OpenFdCount();
  for (int i = 0; i < 3; ++i) (void)ListDrmDevices();
  EXPECT_EQ(OpenFdCount(), before);
}

TEST(AcquireRenderNodeTest, MissingNodeFailsWithItsErrnoAndLeaksNothing) {
  if (Exists("/dev/dri/renderD128")) GTEST_SKIP() << "renderD128 exists: this test only runs without it";
  const KfdRenderNode gpu{128, PciAddress{.domain = 0, .bus = 3}};
  const size_t before = OpenFdCount();
  const absl::StatusOr<int> fd = AcquireRenderNode(gpu, ListDrmDevices());
  EXPECT_THAT(fd, StatusIs(absl::StatusCode::kNotFound, HasSubstr("open(/dev/dri/renderD128)")));
  EXPECT_EQ(ErrnoOf(fd.status()), ENOENT);
  EXPECT_EQ(OpenFdCount(), before);
}

TEST(AcquireRenderNodeTest, RefusesAMinorOutsideTheRenderRangeWithoutOpening) {
  // Minor 0 is /dev/dri/card0 on most machines: never opened as a render node.
  EXPECT_THAT(AcquireRenderNode(KfdRenderNode{.render_minor = 0}, ListDrmDevices()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a render node")));
}

}  // namespace
}  // namespace hipmem::thunk
