#include "testing/kfd_sim/bo_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "base/units.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::NoFreeDescriptors;
using ::hipmem_testing::StatusIs;

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

TEST(BoPagesTest, UntouchedPagesOpenNoFile) {
  // A buffer that is only allocated, GPU-mapped and freed must not cost a descriptor: a process with
  // thousands of buffers would otherwise run out of them.
  std::vector<std::unique_ptr<BoPages>> buffers;
  {
    const NoFreeDescriptors none;
    for (int i = 0; i < 64; ++i) buffers.push_back(std::make_unique<BoPages>("bo", 0x1e6a, Bytes::MiB(2)));
  }
  for (const auto& pages : buffers) EXPECT_FALSE(pages->has_file());
}

TEST(BoPagesTest, FileIsMadeOnceAndClosedWithThePages) {
  int fd = -1;
  {
    BoPages pages("bo", 0x1e6a, Bytes::KiB(8));
    ASSERT_OK_AND_ASSIGN(fd, pages.File());
    EXPECT_TRUE(pages.has_file());
    EXPECT_EQ(lseek(fd, 0, SEEK_END), 8192) << "the file is the buffer's size";
    ASSERT_OK_AND_ASSIGN(const int again, pages.File());
    EXPECT_EQ(again, fd);
  }
  EXPECT_FALSE(IsOpen(fd));
}

TEST(BoPagesTest, EngineViewSharesPagesWithCpuMappingsOfTheFile) {
  BoPages pages("bo", 0x1e6a, Bytes::KiB(8));
  std::byte* view = pages.EngineView();  // makes the file too
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(pages.EngineView(), view) << "one view per buffer";
  ASSERT_OK_AND_ASSIGN(const int fd, pages.File());
  void* cpu = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(cpu, MAP_FAILED);
  EXPECT_EQ(static_cast<char*>(cpu)[4096], 0) << "fresh pages are zero";
  std::memcpy(static_cast<char*>(cpu) + 4096, "vram", 5);
  EXPECT_EQ(std::memcmp(view + 4096, "vram", 5), 0);
  munmap(cpu, 8192);
}

TEST(BoPagesTest, FailureToMakeTheFileIsReportedAndRetried) {
  BoPages pages("bo", 0x1e6a, Bytes::KiB(4));
  absl::Status without_descriptors;
  std::byte* view_without_descriptors = nullptr;
  {
    // Only the calls under test run without descriptors: UBSan's own checks need one (a pipe).
    const NoFreeDescriptors none;
    without_descriptors = pages.File().status();
    view_without_descriptors = pages.EngineView();
  }
  EXPECT_THAT(without_descriptors, StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(view_without_descriptors, nullptr) << "an engine sees a fault, not a crash";
  EXPECT_FALSE(pages.has_file());
  ASSERT_OK_AND_ASSIGN(const int fd, pages.File());
  EXPECT_TRUE(IsOpen(fd));
  EXPECT_NE(pages.EngineView(), nullptr);
}

}  // namespace
}  // namespace hipmem::kfd_sim
