// Issue #24 §1: fork() as on Linux with upstream ROCm. libhsakmt keeps every CPU mapping of GPU memory, rings,
// signals and doorbells out of a forked child (MADV_DONTFORK) and the KFD refuses the child its parent's /dev/kfd,
// so a child that goes on using the HIP state it inherited cannot reach its parent: it finds none of the parent's
// GPU memory mapped (a touch faults), and whatever it does -- stores, copies, memsets, allocations -- the parent's
// data and its next copies are as they were.
//
// Each child runs one step and reports through its exit code; it may also die of the fault a touch of unmapped
// memory raises, which is what upstream gives a child too. A child that hangs is killed (alarm) and reported.
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

constexpr size_t kBytes = 1 << 20;
constexpr unsigned kChildSeconds = 30;  // a hung child (waiting for an engine that is not there) ends here

// Forks; the child runs `step` and leaves with _exit(its result), without the parent's atexit handlers (the
// parent's runtime is not the child's to tear down). Returns the child's wait status.
int RunChild(const std::function<int()>& step) {
  const pid_t child = fork();
  if (child == 0) {
    alarm(kChildSeconds);
    _exit(step());
  }
  if (child < 0) return -1;
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string Describe(int status) {
  if (status == -1) return "fork failed";
  if (WIFEXITED(status)) return "exited with " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

bool Hung(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM; }

// Whether the page at `p` is mapped in this process (mincore answers ENOMEM for an unmapped one).
bool Mapped(const void* p) {
  auto page = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{4095};
  unsigned char resident = 0;
  return mincore(reinterpret_cast<void*>(page), 4096, &resident) == 0;
}

class HipForkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pattern_.resize(kBytes);
    for (size_t i = 0; i < kBytes; ++i) pattern_[i] = static_cast<uint8_t>(i * 37 + 11);
    ASSERT_EQ(hipHostMalloc(&pinned_, kBytes, hipHostMallocDefault), hipSuccess);
    ASSERT_EQ(hipMalloc(&device_, kBytes), hipSuccess);
    ASSERT_EQ(hipStreamCreate(&stream_), hipSuccess);
    std::memcpy(pinned_, pattern_.data(), kBytes);
    ASSERT_EQ(hipMemcpy(device_, pinned_, kBytes, hipMemcpyHostToDevice), hipSuccess);
  }

  void TearDown() override {
    EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
    EXPECT_EQ(hipFree(device_), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned_), hipSuccess);
  }

  // The parent after a child: its buffers hold what it put there, and new work on them runs to completion.
  void ExpectParentUnaffected() {
    EXPECT_EQ(std::memcmp(pinned_, pattern_.data(), kBytes), 0) << "a child's store reached the parent's memory";
    std::vector<uint8_t> back(kBytes, 0);
    ASSERT_EQ(hipMemcpy(back.data(), device_, kBytes, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(std::memcmp(back.data(), pattern_.data(), kBytes), 0) << "a child's copy reached the parent's VRAM";
    // Both engines the parent uses still take work: an async copy on its stream and a blocking one.
    void* other = nullptr;
    ASSERT_EQ(hipMalloc(&other, kBytes), hipSuccess);
    ASSERT_EQ(hipMemcpyAsync(other, device_, kBytes, hipMemcpyDeviceToDevice, stream_), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    std::vector<uint8_t> again(kBytes, 0);
    ASSERT_EQ(hipMemcpy(again.data(), other, kBytes, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(std::memcmp(again.data(), pattern_.data(), kBytes), 0);
    EXPECT_EQ(hipFree(other), hipSuccess);
  }

  std::vector<uint8_t> pattern_;
  void* pinned_ = nullptr;
  void* device_ = nullptr;
  hipStream_t stream_ = nullptr;
};

TEST_F(HipForkTest, AChildHasNoneOfTheParentsGpuMemoryMapped) {
  ASSERT_TRUE(Mapped(pinned_));
  const void* pinned = pinned_;
  const int status = RunChild([pinned] { return Mapped(pinned) ? 1 : 0; });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child still has the parent's pinned memory mapped: " << Describe(status);
  ExpectParentUnaffected();
}

TEST_F(HipForkTest, AChildsStoreToInheritedPinnedMemoryNeverReachesTheParent) {
  void* pinned = pinned_;
  const int status = RunChild([pinned] {
    std::memset(pinned, 0xEE, kBytes);  // faults in the child: nothing is mapped there
    return 0;
  });
  EXPECT_FALSE(Hung(status)) << Describe(status);
  ExpectParentUnaffected();
}

TEST_F(HipForkTest, AChildsCopiesOnInheritedStateLeaveTheParentsDataAndQueuesAlone) {
  void* pinned = pinned_;
  void* device = device_;
  hipStream_t stream = stream_;
  const std::vector<std::function<int()>> steps = {
      [device] {
        std::vector<uint8_t> junk(kBytes, 0xEE);
        return hipMemcpy(device, junk.data(), kBytes, hipMemcpyHostToDevice) == hipSuccess ? 0 : 2;
      },
      [device, pinned, stream] {
        (void)hipMemcpyAsync(device, pinned, kBytes, hipMemcpyHostToDevice, stream);
        return hipStreamSynchronize(stream) == hipSuccess ? 0 : 3;
      },
      [device] { return hipMemset(device, 0xEE, kBytes) == hipSuccess ? 0 : 4; },
      [] {
        // Allocations in the child come from the runtime state it inherited; using them must not touch
        // whatever the parent allocates next.
        void* p = nullptr;
        if (hipMalloc(&p, 4096) != hipSuccess) return 5;
        (void)hipMemset(p, 0xEE, 4096);
        return hipDeviceSynchronize() == hipSuccess ? 0 : 6;
      },
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("child step " + std::to_string(i));
    const int status = RunChild(steps[i]);
    EXPECT_FALSE(Hung(status)) << Describe(status);
    ExpectParentUnaffected();
  }
  // A buffer the parent allocates after the children is its own: a child's allocation of the same address
  // (from the inherited state) wrote nothing into it.
  void* fresh = nullptr;
  ASSERT_EQ(hipMalloc(&fresh, 4096), hipSuccess);
  ASSERT_EQ(hipMemcpy(fresh, pattern_.data(), 4096, hipMemcpyHostToDevice), hipSuccess);
  std::vector<uint8_t> back(4096, 0);
  ASSERT_EQ(hipMemcpy(back.data(), fresh, 4096, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(std::memcmp(back.data(), pattern_.data(), 4096), 0);
  EXPECT_EQ(hipFree(fresh), hipSuccess);
}

}  // namespace
