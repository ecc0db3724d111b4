// The cross-process IPC channel on its own (ipc_socket.h): the process-local descriptor owner, and this process's
// server answering this process's client, so the protocol, the holds and the server's stop are seen without a
// simulator or a second process.
#include "testing/kfd_sim/ipc_socket.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <optional>
#include <thread>
#include <utility>

#include "gtest/gtest.h"
#include "testing/kfd_sim/memfd.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::IsOk;

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

TEST(ProcessLocalFdTest, OwnsAndClosesItsDescriptor) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  close(fds[1]);
  ProcessLocalFd owner(fds[0]);
  EXPECT_EQ(owner.get(), fds[0]);
  ProcessLocalFd moved = std::move(owner);
  EXPECT_FALSE(owner.valid());  // NOLINT(bugprone-use-after-move): a move empties the source
  EXPECT_EQ(moved.get(), fds[0]);
  ProcessLocalFd& same = moved;  // through a reference, so compilers do not flag the deliberate self-move
  moved = std::move(same);       // self-move is harmless
  EXPECT_TRUE(IsOpen(fds[0]));
  moved.Reset();
  EXPECT_FALSE(IsOpen(fds[0]));
  EXPECT_EQ(moved.get(), -1);
}

TEST(ProcessLocalFdTest, AForkedChildDoesNotInheritIt) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ProcessLocalFd read_end(fds[0]);
  ProcessLocalFd write_end(fds[1]);
  const pid_t child = fork();
  if (child == 0) {
    // Closed at fork, and the owner knows: it closes nothing more, even when the number is reused.
    const bool closed = !IsOpen(fds[0]) && !IsOpen(fds[1]) && read_end.get() == -1;
    const int reused = dup(0);
    read_end.Reset();
    _exit(closed && (reused < 0 || IsOpen(reused)) ? 0 : 1);
  }
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(IsOpen(read_end.get())) << "the parent's stays open";
  // The child's copy of the write end is closed: once the parent closes its own, the reader sees EOF.
  write_end.Reset();
  char c;
  EXPECT_EQ(read(read_end.get(), &c, 1), 0);
}

// A grant source with at most one buffer: a memfd with a marker at kOffset.
class OneBuffer final : public IpcGrantSource {
 public:
  static constexpr uint64_t kOffset = 8192;
  static constexpr uint64_t kSize = 4096;

  OneBuffer() {
    absl::StatusOr<MemFd> file = MemFd::Create("ipc_socket_test", Bytes(kOffset + kSize));
    EXPECT_THAT(file, IsOk());
    file_ = *std::move(file);
    EXPECT_EQ(pwrite(file_.fd(), "granted", 8, kOffset), 8);
    handle_ = {0x11111111, 0x22222222, 0x33333333, static_cast<uint32_t>(getpid())};
    buffer_ = std::make_shared<int>(0);
    RegisterIpcSource(this);
  }
  ~OneBuffer() { UnregisterIpcSource(this); }

  std::optional<IpcGrant> Grant(const ShareHandle& handle) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle != handle_ || buffer_ == nullptr) return std::nullopt;
    return IpcGrant{.fd = file_.fd(), .offset = kOffset, .size = kSize, .alloc_flags = 7, .flags = 9,
                    .hold = buffer_};
  }
  bool empty() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return buffer_ == nullptr;
  }

  const ShareHandle& handle() const { return handle_; }
  std::weak_ptr<int> watch() {
    std::lock_guard<std::mutex> lock(mu_);
    return buffer_;
  }
  // Drops the source's own reference: only remote holds keep the buffer.
  void Drop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      buffer_.reset();
    }
    WakeIpcServer();
  }

 private:
  MemFd file_;
  ShareHandle handle_{};
  mutable std::mutex mu_;
  std::shared_ptr<int> buffer_;  // guarded by mu_
};

bool WaitUntil(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Whether this process's server name is bound (listed in /proc/net/unix as "@<name>").
bool ServerNameBound() {
  std::ifstream table("/proc/net/unix");
  const std::string name = "@" + IpcServerName(getpid());
  for (std::string line; std::getline(table, line);) {
    if (line.size() >= name.size() && line.compare(line.size() - name.size(), name.size(), name) == 0) return true;
  }
  return false;
}

// Each test leaves no server behind: it stops once its source is gone (tests after it count descriptors).
class IpcServerTest : public ::testing::Test {
 protected:
  void TearDown() override {
    source_.reset();
    EXPECT_TRUE(WaitUntil([] { return !ServerNameBound(); })) << "the server outlived every source";
  }
  std::unique_ptr<OneBuffer> source_ = std::make_unique<OneBuffer>();
};

TEST_F(IpcServerTest, GrantsTheFileAndHoldsTheBufferWhileTheConnectionIsOpen) {
  OneBuffer& source = *source_;
  ASSERT_THAT(EnsureIpcServer(), IsOk());
  EXPECT_TRUE(ServerNameBound());
  RemoteImport remote = ImportFromProcess(source.handle());
  ASSERT_EQ(remote.error, 0);
  EXPECT_EQ(remote.offset, OneBuffer::kOffset);
  EXPECT_EQ(remote.size, OneBuffer::kSize);
  EXPECT_EQ(remote.alloc_flags, 7u);
  EXPECT_EQ(remote.flags, 9u);
  EXPECT_EQ(fcntl(remote.file.fd(), F_GETFD), FD_CLOEXEC) << "received close-on-exec";
  char marker[8] = {};
  ASSERT_EQ(pread(remote.file.fd(), marker, 8, OneBuffer::kOffset), 8);
  EXPECT_STREQ(marker, "granted");

  // The source lets go; the open connection still holds the buffer, until it closes.
  const std::weak_ptr<int> buffer = source.watch();
  source.Drop();
  EXPECT_FALSE(buffer.expired());
  remote.connection.Reset();
  EXPECT_TRUE(WaitUntil([&] { return buffer.expired(); })) << "the server drops a closed connection's hold";

  // Nothing left to serve: the server stops and frees its name.
  EXPECT_TRUE(WaitUntil([] { return !ServerNameBound(); }));
}

TEST_F(IpcServerTest, RefusesUnknownHandlesAndOtherProcessesNames) {
  OneBuffer& source = *source_;
  ASSERT_THAT(EnsureIpcServer(), IsOk());
  ShareHandle wrong = source.handle();
  wrong[1] ^= 4;
  EXPECT_EQ(ImportFromProcess(wrong).error, -EINVAL);
  // A handle naming this process is served by this process only; pid 0 names none.
  ShareHandle nobody = source.handle();
  nobody[kShareHandlePidWord] = 0;
  EXPECT_EQ(ImportFromProcess(nobody).error, -EINVAL);
  // The refused requests left no hold behind: a good one is still answered.
  EXPECT_EQ(ImportFromProcess(source.handle()).error, 0);
}

// The threads of this process (/proc/self/task).
int CountThreads() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

// Issue #24 §11: exit() stops the server's thread and joins it (StopIpcServerForExit, the library's exit handler)
// even while the server still has a buffer to serve, so nothing runs while the other exit handlers and
// LeakSanitizer do; and the server stays stopped. Run in a forked child, which starts with this thread alone.
TEST(IpcServerExitTest, TheExitHandlerStopsAServerThatStillHasWorkAndJoinsItsThread) {
  const pid_t child = fork();
  if (child == 0) {
    // Never unregistered: the server has something to serve until the process goes (reachable from it).
    auto* source = new OneBuffer();
    (void)source;
    // This thread, and a sanitizer's own where there is one.
    const int alone = CountThreads();
    if (!EnsureIpcServer().ok()) _exit(1);
    if (CountThreads() != alone + 1) _exit(2);  // and the server's
    StopIpcServerForExit();
    // A joined thread leaves /proc/self/task a moment after the join returns (the kernel wakes the joiner before
    // it has removed the task): wait for that, bounded. A thread still serving never goes.
    if (!WaitUntil([alone] { return CountThreads() == alone; })) _exit(3);
    if (ServerNameBound()) _exit(4);
    if (EnsureIpcServer().code() != absl::StatusCode::kFailedPrecondition) _exit(5);
    std::exit(0);  // the exit handler runs again: nothing left to stop
  }
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the step that failed in the child";
}

}  // namespace
}  // namespace hipmem::kfd_sim
