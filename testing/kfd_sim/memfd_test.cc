#include "testing/kfd_sim/memfd.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "base/units.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::IsOk;

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

int OpenFdCount() {
  int count = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (readdir(dir) != nullptr) ++count;
  closedir(dir);
  return count;
}

TEST(MemFdTest, CreateSizesTheFileAndSharesPages) {
  ASSERT_OK_AND_ASSIGN(MemFd file, MemFd::Create("test", Bytes::MiB(1)));
  EXPECT_EQ(file.size(), Bytes::MiB(1));
  EXPECT_EQ(lseek(file.fd(), 0, SEEK_END), 1 << 20);
  EXPECT_NE(fcntl(file.fd(), F_GETFD) & FD_CLOEXEC, 0);
  void* a = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd(), 0);
  void* b = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, file.fd(), 0);
  ASSERT_NE(a, MAP_FAILED);
  ASSERT_NE(b, MAP_FAILED);
  static_cast<char*>(a)[5] = 'x';
  EXPECT_EQ(static_cast<char*>(b)[5], 'x');
  munmap(a, 4096);
  munmap(b, 4096);
}

TEST(MemFdTest, HugeSparseFileCommitsNothing) {
  ASSERT_OK_AND_ASSIGN(MemFd file, MemFd::Create("huge", Bytes::GiB(192)));
  EXPECT_EQ(file.size(), Bytes::GiB(192));
}

TEST(MemFdTest, DestructorCloses) {
  int fd = -1;
  {
    ASSERT_OK_AND_ASSIGN(MemFd file, MemFd::Create("test", Bytes::KiB(4)));
    fd = file.fd();
    EXPECT_TRUE(IsOpen(fd));
  }
  EXPECT_FALSE(IsOpen(fd));
}

TEST(MemFdTest, MoveEmptiesTheSource) {
  ASSERT_OK_AND_ASSIGN(MemFd a, MemFd::Create("test", Bytes::KiB(4)));
  const int fd = a.fd();
  MemFd b(std::move(a));
  EXPECT_EQ(a.fd(), -1);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(a.size(), Bytes(0));
  EXPECT_EQ(b.fd(), fd);
  EXPECT_TRUE(IsOpen(fd));
}

TEST(MemFdTest, MoveAssignClosesTheOldFile) {
  ASSERT_OK_AND_ASSIGN(MemFd a, MemFd::Create("a", Bytes::KiB(4)));
  ASSERT_OK_AND_ASSIGN(MemFd b, MemFd::Create("b", Bytes::KiB(8)));
  const int old_fd = a.fd();
  const int new_fd = b.fd();
  a = std::move(b);
  EXPECT_FALSE(IsOpen(old_fd));
  EXPECT_EQ(a.fd(), new_fd);
  EXPECT_EQ(a.size(), Bytes::KiB(8));
  EXPECT_EQ(b.fd(), -1);  // NOLINT(bugprone-use-after-move)
}

TEST(MemFdTest, SelfMoveIsHarmless) {
  ASSERT_OK_AND_ASSIGN(MemFd a, MemFd::Create("a", Bytes::KiB(4)));
  const int fd = a.fd();
  MemFd& alias = a;
  a = std::move(alias);
  EXPECT_EQ(a.fd(), fd);
  EXPECT_TRUE(IsOpen(fd));
}

TEST(MemFdTest, CloseReportsSuccessAndEmpties) {
  ASSERT_OK_AND_ASSIGN(MemFd a, MemFd::Create("a", Bytes::KiB(4)));
  const int fd = a.fd();
  EXPECT_THAT(std::move(a).Close(), IsOk());
  EXPECT_FALSE(IsOpen(fd));
  EXPECT_EQ(a.fd(), -1);  // NOLINT(bugprone-use-after-move)
}

TEST(MemFdTest, CloseReportsTheKernelsError) {
  ASSERT_OK_AND_ASSIGN(MemFd a, MemFd::Create("a", Bytes::KiB(4)));
  // Close the descriptor behind the owner's back: its own close() then fails with EBADF.
  ASSERT_EQ(close(a.fd()), 0);
  EXPECT_EQ(std::move(a).Close().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(MemFdTest, FailedCreateLeaksNothing) {
  const int before = OpenFdCount();
  // Larger than off_t can express.
  EXPECT_EQ(MemFd::Create("too big", Bytes(UINT64_MAX)).status().code(), absl::StatusCode::kInvalidArgument);
  // ftruncate failing after memfd_create succeeded: the new descriptor must be closed.
  rlimit old_limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit small = old_limit;
  small.rlim_cur = 1 << 20;
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const absl::Status status = MemFd::Create("over rlimit", Bytes::MiB(2)).status();
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(OpenFdCount(), before);
}

}  // namespace
}  // namespace hipmem::kfd_sim
