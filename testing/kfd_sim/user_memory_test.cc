#include "testing/kfd_sim/user_memory.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <memory>

#include "gtest/gtest.h"

namespace hipmem::kfd_sim {
namespace {

uint64_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(UserMemoryTest, CopiesBothWays) {
  const uint64_t source = 0x1122334455667788;
  uint64_t copy = 0;
  ASSERT_TRUE(CopyFromUser(&copy, Addr(&source), sizeof(copy)));
  EXPECT_EQ(copy, source);
  uint64_t target = 0;
  ASSERT_TRUE(CopyToUser(Addr(&target), &source, sizeof(source)));
  EXPECT_EQ(target, source);
}

TEST(UserMemoryTest, StackAndHeapArgumentsBothCopy) {
  // The caller's stack takes the direct path, the heap the fault-checked one; both must copy.
  uint64_t on_stack = 0;
  auto on_heap = std::make_unique<uint64_t>(0);
  const uint64_t value = 0x1122334455667788;
  ASSERT_TRUE(CopyToUser(Addr(&on_stack), &value, sizeof(value)));
  ASSERT_TRUE(CopyToUser(Addr(on_heap.get()), &value, sizeof(value)));
  EXPECT_EQ(on_stack, value);
  EXPECT_EQ(*on_heap, value);
  uint64_t back = 0;
  ASSERT_TRUE(CopyFromUser(&back, Addr(&on_stack), sizeof(back)));
  EXPECT_EQ(back, value);
}

TEST(UserMemoryTest, PidFollowsFork) {
  const pid_t parent = CurrentPid();
  EXPECT_EQ(parent, getpid());
  const pid_t child = fork();
  if (child == 0) _exit(CurrentPid() == getpid() && CurrentPid() != parent ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(UserMemoryTest, NullPointerFaults) {
  uint64_t value = 0;
  EXPECT_FALSE(CopyFromUser(&value, 0, sizeof(value)));
  EXPECT_FALSE(CopyToUser(0, &value, sizeof(value)));
}

TEST(UserMemoryTest, ZeroBytesNeverFault) {
  uint64_t value = 0;
  EXPECT_TRUE(CopyFromUser(&value, 0, 0));
  EXPECT_TRUE(CopyToUser(0, &value, 0));
}

TEST(UserMemoryTest, UnmappedAndReadOnlyPagesFault) {
  void* none = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* read_only = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(none, MAP_FAILED);
  ASSERT_NE(read_only, MAP_FAILED);
  uint64_t value = 0;
  EXPECT_FALSE(CopyFromUser(&value, Addr(none), sizeof(value)));
  EXPECT_TRUE(CopyFromUser(&value, Addr(read_only), sizeof(value)));
  EXPECT_FALSE(CopyToUser(Addr(read_only), &value, sizeof(value)));
  munmap(none, 4096);
  munmap(read_only, 4096);
}

TEST(UserMemoryTest, CopyStraddlingIntoAFaultingPageFails) {
  char* pages = static_cast<char*>(mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(pages + 4096, 4096, PROT_NONE), 0);
  uint64_t value = 0;
  EXPECT_FALSE(CopyFromUser(&value, Addr(pages + 4092), sizeof(value)));
  munmap(pages, 8192);
}

// A fuzzer's window (RestrictUserMemoryTo): mapped memory outside it, the caller's own stack included, counts as
// unmapped; inside it copies work; lifting it restores the kernel's view.
TEST(UserMemoryTest, AWindowMakesEverythingOutsideItUnmapped) {
  auto inside = std::make_unique<uint64_t[]>(4);
  auto outside = std::make_unique<uint64_t>(7);
  uint64_t on_stack = 9;
  const UserRange window[] = {{Addr(inside.get()), 4 * sizeof(uint64_t)}};
  RestrictUserMemoryTo(window);
  const uint64_t value = 0x55;
  uint64_t back = 0;
  EXPECT_TRUE(CopyToUser(Addr(&inside[3]), &value, sizeof(value)));
  EXPECT_TRUE(CopyFromUser(&back, Addr(&inside[3]), sizeof(back)));
  EXPECT_EQ(back, value);
  EXPECT_FALSE(CopyToUser(Addr(outside.get()), &value, sizeof(value)));
  EXPECT_FALSE(CopyToUser(Addr(&on_stack), &value, sizeof(value)));
  EXPECT_FALSE(CopyFromUser(&back, Addr(outside.get()), sizeof(back)));
  // Straddling the window's end is outside it, as is a range that wraps.
  EXPECT_FALSE(CopyToUser(Addr(&inside[3]) + 4, &value, sizeof(value)));
  EXPECT_FALSE(UserRangeAllowed(Addr(inside.get()), UINT64_MAX));
  EXPECT_EQ(*outside, 7u);
  EXPECT_EQ(on_stack, 9u);

  RestrictUserMemoryTo({});
  EXPECT_TRUE(CopyToUser(Addr(outside.get()), &value, sizeof(value)));
  EXPECT_TRUE(CopyToUser(Addr(&on_stack), &value, sizeof(value)));
  EXPECT_EQ(*outside, value);
  EXPECT_EQ(on_stack, value);
}

}  // namespace
}  // namespace hipmem::kfd_sim
