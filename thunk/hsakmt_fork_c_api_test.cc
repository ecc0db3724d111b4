// fork() and the hsaKmt C API: the child starts without a KFD and must open its own; the parent keeps its own.
#include <sys/wait.h>
#include <unistd.h>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"

namespace {

HsaMemFlags SystemMemory() {
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  return flags;
}

// Runs in the child: only the calls under test, no gtest. Returns 0, or the number of the first step that
// answered otherwise than expected.
int ChildSteps() {
  HsaVersionInfo version{};
  if (hsaKmtGetVersion(&version) != HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED) return 1;
  void* p = nullptr;
  if (hsaKmtAllocMemory(0, 4096, SystemMemory(), &p) != HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED) return 2;
  if (hsaKmtCloseKFD() != HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED) return 3;
  // A fresh open, not a reference to the parent's: SUCCESS rather than KERNEL_ALREADY_OPENED.
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) return 4;
  if (hsaKmtGetVersion(&version) != HSAKMT_STATUS_SUCCESS || version.KernelInterfaceMajorVersion != 1) return 5;
  if (hsaKmtAllocMemory(0, 4096, SystemMemory(), &p) != HSAKMT_STATUS_SUCCESS) return 6;
  static_cast<volatile char*>(p)[0] = 1;
  if (hsaKmtFreeMemory(p, 4096) != HSAKMT_STATUS_SUCCESS) return 7;
  if (hsaKmtCloseKFD() != HSAKMT_STATUS_SUCCESS) return 8;
  return 0;
}

TEST(HsakmtForkTest, ChildMustOpenItsOwnKfdAndTheParentKeepsItsOwn) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  void* parent_memory = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(0, 4096, SystemMemory(), &parent_memory), HSAKMT_STATUS_SUCCESS);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(ChildSteps());
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's first unexpected step";

  HsaVersionInfo version{};
  EXPECT_EQ(hsaKmtGetVersion(&version), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtFreeMemory(parent_memory, 4096), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
}

}  // namespace
