// Issue #24: the HIP runtime when it cannot come up -- no /dev/kfd, a KFD open that fails, a topology that cannot be
// read, any kernel entry of the start-up failing. As current CLR (hip_internal.hpp HIP_INIT, hip_context.cpp
// hip::init, rocclr device.cpp Device::init): the start-up runs once (std::call_once) and is never retried; the call
// that ran it answers hipErrorInvalidDevice, every later call hipErrorNoDevice, hipGetDeviceCount a count of 0 with
// hipErrorNoDevice (HIP_INIT_API_NO_RETURN), and the version queries still answer. Nothing is left in the simulated
// kernel, nothing leaks (the child leaves through exit(), so LeakSanitizer checks it under --config=asan).
//
// The runtime starts once per process, so each case runs in a forked child of a parent that never starts it. The
// child reports the number of its first failed step through its exit code.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"
#include "testing/kfd_sim/fault_injection.h"
#include "thunk/hsakmt_fork_child.h"
#include "thunk/kfd_device_sim.h"

namespace {

using ::hipmem::kfd_sim::FaultPlan;
using ::hipmem::kfd_sim::KernelEntry;
using ::hipmem::kfd_sim::ScopedFaultInjection;
using ::hipmem::kfd_sim::SimUsage;
using ::hipmem::kfd_sim::UsageOf;
using ::hipmem_testing::DescribeChild;
using ::hipmem_testing::RunChild;

// One step of a child: exits with `n` when `ok` is false; a step that hangs ends the child (SIGALRM). Generous: a
// start-up under a sanitizer on a loaded two-core machine takes seconds.
#define STEP(n, ok)        \
  do {                     \
    alarm(60);             \
    if (!(ok)) std::exit(n); \
  } while (0)

constexpr std::chrono::seconds kChildLimit{300};

constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();

// The process-wide simulated machine (made before the runtime looks for it, so a case can break it first).
hipmem::thunk::SimMachine* Machine() {
  absl::StatusOr<std::shared_ptr<hipmem::thunk::SimMachine>> machine = hipmem::thunk::SimMachine::Default();
  return machine.ok() ? machine->get() : nullptr;
}

// After a failed start: what every later call answers, the version queries, and the runtime not started again
// (the cause is gone by now: the fault is disarmed). Steps 10 and up.
void ExpectFailedRuntimeFromNowOn() {
  int count = -1;
  STEP(10, hipGetDeviceCount(&count) == hipErrorNoDevice && count == 0);
  STEP(11, hipGetDeviceCount(nullptr) == hipErrorInvalidValue);
  void* p = nullptr;
  STEP(12, hipMalloc(&p, 4096) == hipErrorNoDevice && p == nullptr);
  STEP(13, hipSetDevice(0) == hipErrorNoDevice);
  hipStream_t stream = nullptr;
  STEP(14, hipStreamCreate(&stream) == hipErrorNoDevice);
  STEP(15, hipInit(0) == hipErrorNoDevice);  // not retried
  int version = 0;
  STEP(16, hipRuntimeGetVersion(&version) == hipSuccess && version == HIP_VERSION);
  STEP(17, hipDriverGetVersion(&version) == hipSuccess);
  STEP(18, hipGetLastError() == hipErrorNoDevice);
}

SimUsage Usage(hipmem::thunk::SimMachine* machine) { return UsageOf(machine->simulator().Snapshot()); }

// The simulated kernel holds nothing of the failed start: no KFD process, no buffer, queue, event or byte more than
// before it. Step 20.
void ExpectNothingLeftIn(hipmem::thunk::SimMachine* machine, const SimUsage& before) {
  STEP(20, before.processes == 0 && Usage(machine) == before);
}

void ExpectChildPassed(int status) {
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << DescribeChild(status);
}

TEST(HipInitFailureTest, WithoutDevKfdHipInitAnswersInvalidDeviceThenEveryCallNoDevice) {
  if (access("/dev/kfd", F_OK) == 0) GTEST_SKIP() << "this machine has a /dev/kfd";
  ExpectChildPassed(RunChild([] {
    // The Linux backend, as a program on a machine without the amdgpu driver gets.
    STEP(1, setenv("HIPMEM_KFD_BACKEND", "linux", 1) == 0);
    STEP(2, hipInit(0) == hipErrorInvalidDevice);
    ExpectFailedRuntimeFromNowOn();
  }, kChildLimit));
}

TEST(HipInitFailureTest, AKfdOpenThatFailsMakesHipInitAnswerInvalidDevice) {
  for (const int error : {EACCES, ENOMEM, ENOENT}) {
    SCOPED_TRACE(testing::Message() << "open(/dev/kfd) fails with errno " << error);
    ExpectChildPassed(RunChild([error] {
      hipmem::thunk::SimMachine* machine = Machine();
      STEP(1, machine != nullptr);
      const SimUsage before = Usage(machine);
      {
        ScopedFaultInjection fault(
            FaultPlan{.fail_at = 1, .fail_count = kForever, .error = error, .only_entry = KernelEntry::kOpenKfd});
        STEP(2, hipInit(0) == hipErrorInvalidDevice);
        STEP(3, fault.failed() >= 1);
      }
      ExpectFailedRuntimeFromNowOn();
      ExpectNothingLeftIn(machine, before);
    }, kChildLimit));
  }
}

TEST(HipInitFailureTest, HipGetDeviceCountAsTheFirstCallAnswersNoDeviceAndACountOfZero) {
  ExpectChildPassed(RunChild([] {
    hipmem::thunk::SimMachine* machine = Machine();
    STEP(1, machine != nullptr);
    const SimUsage before = Usage(machine);
    {
      ScopedFaultInjection fault(
          FaultPlan{.fail_at = 1, .fail_count = kForever, .error = EACCES, .only_entry = KernelEntry::kOpenKfd});
      int count = -1;
      STEP(2, hipGetDeviceCount(&count) == hipErrorNoDevice && count == 0);
    }
    ExpectFailedRuntimeFromNowOn();
    ExpectNothingLeftIn(machine, before);
  }, kChildLimit));
}

TEST(HipInitFailureTest, ATopologyThatCannotBeReadMakesHipInitAnswerInvalidDevice) {
  ExpectChildPassed(RunChild([] {
    hipmem::thunk::SimMachine* machine = Machine();
    STEP(1, machine != nullptr);
    const SimUsage before = Usage(machine);
    // The sysfs tree the thunk reads the topology from is gone (as when /sys/devices/virtual/kfd is not there).
    std::error_code error;
    std::filesystem::remove_all(machine->sysfs_root(), error);
    STEP(2, !error && !std::filesystem::exists(machine->sysfs_root()));
    STEP(3, hipInit(0) == hipErrorInvalidDevice);
    ExpectFailedRuntimeFromNowOn();
    ExpectNothingLeftIn(machine, before);
  }, kChildLimit));
}

// Every kernel entry the start-up makes, failed in turn (one child each): hipInit answers hipErrorInvalidDevice, or
// the runtime works around the failure and starts; either way nothing of a failed start stays in the kernel.
TEST(HipInitFailureTest, AnyKernelEntryOfTheStartUpFailingLeavesNothingBehind) {
  // How many entries a start-up makes, counted in a child (the parent must not start the runtime), reported through
  // the exit code: a start-up of more than 250 would need a pipe.
  const int counted = RunChild(
      [] {
        STEP(255, Machine() != nullptr);
        size_t entries = 0;
        {
          ScopedFaultInjection count(FaultPlan{});
          STEP(255, hipInit(0) == hipSuccess);
          entries = count.counted().size();
        }
        std::exit(static_cast<int>(std::min<size_t>(entries, 254)));
      },
      kChildLimit);
  ASSERT_TRUE(WIFEXITED(counted)) << DescribeChild(counted);
  const int entries = WEXITSTATUS(counted);
  ASSERT_GE(entries, 3);
  ASSERT_LT(entries, 250);
  int failed_starts = 0;
  for (int k = 1; k <= entries; ++k) {
    SCOPED_TRACE(testing::Message() << "failing entry " << k << " of " << entries);
    const int status = RunChild([k] {
      hipmem::thunk::SimMachine* machine = Machine();
      STEP(1, machine != nullptr);
      const SimUsage before = Usage(machine);
      hipError_t init = hipSuccess;
      {
        ScopedFaultInjection fault(FaultPlan{.fail_at = static_cast<uint64_t>(k)});
        init = hipInit(0);
        STEP(2, fault.failed() == 1);
      }
      if (init == hipSuccess) std::exit(100);  // worked around
      STEP(3, init == hipErrorInvalidDevice);
      ExpectFailedRuntimeFromNowOn();
      ExpectNothingLeftIn(machine, before);
    }, kChildLimit);
    ASSERT_TRUE(WIFEXITED(status)) << DescribeChild(status);
    if (WEXITSTATUS(status) == 100) continue;
    EXPECT_EQ(WEXITSTATUS(status), 0) << DescribeChild(status);
    ++failed_starts;
  }
  // Opening the KFD and acquiring the GPU's VM at least cannot be worked around.
  EXPECT_GE(failed_starts, 2);
}

}  // namespace
