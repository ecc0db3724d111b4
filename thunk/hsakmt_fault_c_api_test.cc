// Issue #24: the hsaKmt C API when the KFD fails a call for lack of resources. Every kernel entry of a scenario is
// failed in turn (testing/kfd_sim/fault_injection.h): the call that met it answers libhsakmt's error code, the
// simulated kernel holds nothing more than before the scenario once the caller has released what it got, and the
// same scenario then succeeds with correct data.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/fault_injection.h"
#include "thunk/kfd_device_sim.h"

namespace {

using ::hipmem_testing::FirstGpuNode;

using ::hipmem::kfd_sim::CountedEntry;
using ::hipmem::kfd_sim::CountEntries;
using ::hipmem::kfd_sim::EntryName;
using ::hipmem::kfd_sim::FaultPlan;
using ::hipmem::kfd_sim::ScopedFaultInjection;
using ::hipmem::kfd_sim::SimUsage;
using ::hipmem::kfd_sim::UsageOf;
namespace uapi = ::hipmem::kfd_uapi;

hipmem::kfd_sim::Simulator& Sim() {
  auto machine = hipmem::thunk::SimMachine::Default();
  EXPECT_TRUE(machine.ok()) << machine.status();
  return (*machine)->simulator();
}
SimUsage Usage() { return UsageOf(Sim().Snapshot()); }

// The first failure of a scenario: which call, and what it answered.
struct Outcome {
  std::string call = {};  // the call that failed; empty when none did
  HSAKMT_STATUS status = HSAKMT_STATUS_SUCCESS;
  int mmio_banks = 0;  // OpenClose: the GPU nodes reporting an MMIO_REMAP bank while open
  bool ok() const { return status == HSAKMT_STATUS_SUCCESS; }
};
#define RETURN_IF_FAILED(call_expr)                                     \
  do {                                                                  \
    const HSAKMT_STATUS s_ = (call_expr);                               \
    if (s_ != HSAKMT_STATUS_SUCCESS) return Outcome{#call_expr, s_};     \
  } while (0)

// hsaKmtOpenKFD and hsaKmtCloseKFD: the open reads the topology, acquires every GPU's VM and sets up the
// apertures.
Outcome OpenClose() {
  RETURN_IF_FAILED(hsaKmtOpenKFD());
  HsaSystemProperties sys{};
  const HSAKMT_STATUS props = hsaKmtAcquireSystemProperties(&sys);
  int mmio_banks = 0;
  for (HSAuint32 n = 0; props == HSAKMT_STATUS_SUCCESS && n < sys.NumNodes; ++n) {
    HsaNodeProperties node{};
    HsaMemoryProperties banks[8] = {};
    if (hsaKmtGetNodeProperties(n, &node) != HSAKMT_STATUS_SUCCESS || node.NumMemoryBanks > 8) continue;
    if (hsaKmtGetNodeMemoryProperties(n, node.NumMemoryBanks, banks) != HSAKMT_STATUS_SUCCESS) continue;
    for (HSAuint32 b = 0; b < node.NumMemoryBanks; ++b) mmio_banks += banks[b].HeapType == HSA_HEAPTYPE_MMIO_REMAP;
  }
  const HSAKMT_STATUS closed = hsaKmtCloseKFD();
  if (props != HSAKMT_STATUS_SUCCESS) return Outcome{"hsaKmtAcquireSystemProperties", props};
  if (closed != HSAKMT_STATUS_SUCCESS) return Outcome{"hsaKmtCloseKFD", closed};
  if (sys.NumNodes < 2) return Outcome{"NumNodes < 2", HSAKMT_STATUS_ERROR};
  return Outcome{.mmio_banks = mmio_banks};
}

// With the KFD open: a host-visible VRAM buffer and a system-memory buffer, mapped to the GPU, written and read by
// the CPU, an event created, set and waited on, everything released again. A release that fails is retried once, as
// libhsakmt keeps the object of a failed free or destroy (fmm.c __fmm_release, events.c hsaKmtDestroyEvent) so that
// the caller can.
Outcome MemoryAndEvents(HSAuint32 gpu) {
  constexpr HSAuint64 kBytes = 2 << 20;
  HsaMemFlags vram{};
  vram.ui32.NonPaged = 1;
  vram.ui32.NoSubstitute = 1;
  vram.ui32.HostAccess = 1;
  HsaMemFlags system{};
  system.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  system.ui32.HostAccess = 1;
  system.ui32.NoSubstitute = 1;
  Outcome first;
  auto note = [&](const char* call, HSAKMT_STATUS s) {
    if (s != HSAKMT_STATUS_SUCCESS && first.ok()) first = Outcome{call, s};
    return s == HSAKMT_STATUS_SUCCESS;
  };
  auto release = [&](const char* call, auto&& op) {
    if (!note(call, op())) {
      EXPECT_EQ(op(), HSAKMT_STATUS_SUCCESS) << call << " retried";
    }
  };

  void* buffers[2] = {nullptr, nullptr};
  const HsaMemFlags flags[2] = {vram, system};
  const HSAuint32 nodes[2] = {gpu, 0};
  const char* const alloc_names[2] = {"hsaKmtAllocMemory(VRAM)", "hsaKmtAllocMemory(system)"};
  bool mapped[2] = {false, false};
  HsaEvent* event = nullptr;
  for (int i = 0; i < 2 && first.ok(); ++i) {
    if (!note(alloc_names[i], hsaKmtAllocMemory(nodes[i], kBytes, flags[i], &buffers[i]))) {
      if (buffers[i] != nullptr) first = Outcome{"failed alloc left an address", HSAKMT_STATUS_ERROR};
      break;
    }
    HSAuint64 va = 0;
    mapped[i] = note("hsaKmtMapMemoryToGPU", hsaKmtMapMemoryToGPU(buffers[i], kBytes, &va));
    if (!mapped[i]) break;
    if (va != reinterpret_cast<uintptr_t>(buffers[i])) first = Outcome{"GPU VA != CPU VA", HSAKMT_STATUS_ERROR};
    auto* bytes = static_cast<uint8_t*>(buffers[i]);
    for (HSAuint64 b = 0; b < kBytes; b += 4096) bytes[b] = static_cast<uint8_t>(b / 4096 + i);
    for (HSAuint64 b = 0; b < kBytes && first.ok(); b += 4096) {
      if (bytes[b] != static_cast<uint8_t>(b / 4096 + i)) first = Outcome{"read back", HSAKMT_STATUS_ERROR};
    }
  }
  if (first.ok()) {
    HsaEventDescriptor descriptor{};
    descriptor.EventType = HSA_EVENTTYPE_SIGNAL;
    descriptor.NodeId = gpu;
    if (!note("hsaKmtCreateEvent", hsaKmtCreateEvent(&descriptor, true, false, &event)) && event != nullptr) {
      first = Outcome{"failed create left an event", HSAKMT_STATUS_ERROR};
      event = nullptr;
    }
    if (first.ok() && note("hsaKmtSetEvent", hsaKmtSetEvent(event))) {
      note("hsaKmtWaitOnEvent", hsaKmtWaitOnEvent(event, 0));
    }
  }
  if (event != nullptr) release("hsaKmtDestroyEvent", [&] { return hsaKmtDestroyEvent(event); });
  for (int i = 1; i >= 0; --i) {
    if (mapped[i]) release("hsaKmtUnmapMemoryToGPU", [&] { return hsaKmtUnmapMemoryToGPU(buffers[i]); });
    if (buffers[i] != nullptr) release("hsaKmtFreeMemory", [&] { return hsaKmtFreeMemory(buffers[i], kBytes); });
  }
  return first;
}

// libhsakmt's answer when the kernel fails the call: hsaKmtAllocMemory answers NO_MEMORY for VRAM and ERROR for
// system memory (memory.c hsaKmtAllocMemoryAlign: fmm_allocate_device / fmm_allocate_host returning NULL); every
// other call here answers ERROR for a failed ioctl.
HSAKMT_STATUS ExpectedStatus(const std::string& call) {
  return call == "hsaKmtAllocMemory(VRAM)" ? HSAKMT_STATUS_NO_MEMORY : HSAKMT_STATUS_ERROR;
}

std::string Describe(const std::vector<CountedEntry>& entries) {
  std::string out;
  for (const CountedEntry& e : entries) out += EntryName(e) + " ";
  return out;
}

TEST(HsakmtFaultTest, OpenKfdFailingAtEveryKernelEntryAnswersAnErrorOrRunsWithoutTheMmioPageAndLeavesNothing) {
  const SimUsage start = Usage();
  const Outcome normal = OpenClose();
  ASSERT_TRUE(normal.ok()) << normal.call << " answered " << normal.status;
  ASSERT_GE(normal.mmio_banks, 1) << "every GFX9+ GPU maps its MMIO page at open";
  absl::StatusOr<std::vector<CountedEntry>> entries = CountEntries(FaultPlan{}, [] { EXPECT_TRUE(OpenClose().ok()); });
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_GE(entries->size(), 3u) << Describe(*entries);
  for (size_t k = 1; k <= entries->size(); ++k) {
    SCOPED_TRACE(testing::Message() << "failing entry " << k << " of " << entries->size() << ": "
                                    << EntryName((*entries)[k - 1]));
    Outcome outcome;
    {
      ScopedFaultInjection fault(FaultPlan{.fail_at = k});
      outcome = OpenClose();
      EXPECT_EQ(fault.failed(), 1u);
    }
    const CountedEntry& entry = (*entries)[k - 1];
    const std::string name = EntryName(entry);
    if (entry.entry == hipmem::kfd_sim::KernelEntry::kMmap || name == "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU" ||
        name == "AMDKFD_IOC_MAP_MEMORY_TO_GPU") {
      // fmm.c map_mmio: a GPU whose MMIO page cannot be allocated, CPU-mapped or GPU-mapped is opened without it
      // (libhsakmt logs it); its MMIO_REMAP bank is missing, nothing else.
      EXPECT_TRUE(outcome.ok()) << outcome.call << " answered " << outcome.status;
      EXPECT_EQ(outcome.mmio_banks, normal.mmio_banks - 1);
    } else if (name == "AMDKFD_IOC_FREE_MEMORY_OF_GPU") {
      // release_mmio at close ignores a failed free: closing /dev/kfd releases the buffer anyway.
      EXPECT_TRUE(outcome.ok()) << outcome.call << " answered " << outcome.status;
    } else {
      EXPECT_EQ(outcome.call, "hsaKmtOpenKFD()");
      // openclose.c: a failed open of /dev/kfd is KERNEL_IO_CHANNEL_NOT_OPENED; a failed setup call of the open
      // (GET_VERSION, a render node failing otherwise than ENOENT/EPERM, the apertures, ACQUIRE_VM) is ERROR.
      EXPECT_EQ(outcome.status, entry.entry == hipmem::kfd_sim::KernelEntry::kOpenKfd
                                    ? HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED
                                    : HSAKMT_STATUS_ERROR);
    }
    // A failed open keeps nothing: the process is closed and a later open starts afresh.
    EXPECT_EQ(Usage(), start);
    HsaVersionInfo v{};
    EXPECT_EQ(hsaKmtGetVersion(&v), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    const Outcome again = OpenClose();
    EXPECT_TRUE(again.ok()) << again.call << " answered " << again.status;
    EXPECT_EQ(Usage(), start);
  }
}

// The first GPU's node, learnt by an open and close of its own, for a test that must then start from a closed KFD.
HSAuint32 FirstGpuNodeOfAFreshOpen() {
  EXPECT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  const HSAuint32 node = FirstGpuNode();
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  return node;
}

// A GPU whose render node does not open with ENOENT (no such node) or EPERM (not this user's) is left out, as libhsakmt
// leaves the node out (topology.c topology_sysfs_check_node_supported): the open succeeds, the topology counts only the
// nodes it can use (here the CPU alone; WithoutNodes in topology_test covers the numbering on several GPUs), no link
// leads to the GPU, and a call naming its old node is refused as for any node that does not exist.
TEST(HsakmtFaultTest, AGpuWhoseRenderNodeIsAbsentOrNotOursIsLeftOutOfTheTopology) {
  const HSAuint32 gpu = FirstGpuNodeOfAFreshOpen();
  ASSERT_NE(gpu, 0u);
  const SimUsage start = Usage();
  for (const int error : {ENOENT, EPERM}) {
    SCOPED_TRACE(error);
    {
      ScopedFaultInjection fault(
          FaultPlan{.fail_at = 1, .error = error, .only_entry = hipmem::kfd_sim::KernelEntry::kOpenRenderNode});
      ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
      EXPECT_EQ(fault.failed(), 1u);
    }
    HsaSystemProperties sys{};
    ASSERT_EQ(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(sys.NumNodes, 1u);
    for (HSAuint32 n = 0; n < sys.NumNodes; ++n) {
      HsaNodeProperties node{};
      ASSERT_EQ(hsaKmtGetNodeProperties(n, &node), HSAKMT_STATUS_SUCCESS);
      EXPECT_EQ(node.KFDGpuID, 0u) << "node " << n;
      EXPECT_EQ(node.NumIOLinks, 0u) << "node " << n;
    }
    HsaNodeProperties gone{};
    EXPECT_EQ(hsaKmtGetNodeProperties(gpu, &gone), HSAKMT_STATUS_INVALID_NODE_UNIT);
    HsaMemFlags vram{};
    vram.ui32.NonPaged = 1;
    vram.ui32.NoSubstitute = 1;
    void* buffer = nullptr;
    EXPECT_EQ(hsaKmtAllocMemory(gpu, 4096, vram, &buffer), HSAKMT_STATUS_INVALID_NODE_UNIT);
    EXPECT_EQ(buffer, nullptr);
    EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(Usage(), start);
    // The next open, with the render node back, sees the GPU again.
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(FirstGpuNode(), gpu);
    EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  }
}

TEST(HsakmtFaultTest, MemoryAndEventsFailingAtEveryKernelEntryAnswerAnErrorAndLeaveNothing) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  absl::Cleanup close = [] { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); };
  const HSAuint32 gpu = FirstGpuNode();
  ASSERT_NE(gpu, 0u);
  // The first run of the scenario may set up what stays for the process (the event page): not part of the count.
  ASSERT_TRUE(MemoryAndEvents(gpu).ok());
  const SimUsage start = Usage();
  absl::StatusOr<std::vector<CountedEntry>> entries =
      CountEntries(FaultPlan{}, [&] { EXPECT_TRUE(MemoryAndEvents(gpu).ok()); });
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_GE(entries->size(), 6u) << Describe(*entries);
  for (size_t k = 1; k <= entries->size(); ++k) {
    SCOPED_TRACE(testing::Message() << "failing entry " << k << " of " << entries->size() << ": "
                                    << EntryName((*entries)[k - 1]));
    Outcome outcome;
    {
      ScopedFaultInjection fault(FaultPlan{.fail_at = k});
      outcome = MemoryAndEvents(gpu);
      EXPECT_EQ(fault.failed(), 1u);
    }
    EXPECT_FALSE(outcome.ok());
    EXPECT_EQ(outcome.status, ExpectedStatus(outcome.call)) << outcome.call;
    EXPECT_EQ(Usage(), start);
    const Outcome again = MemoryAndEvents(gpu);
    EXPECT_TRUE(again.ok()) << again.call << " answered " << again.status;
    EXPECT_EQ(Usage(), start);
  }
}

}  // namespace

namespace {

using ::hipmem::kfd_sim::KernelEntry;

// With the KFD open: an SDMA queue over a host ring, created and destroyed. Its engine thread is the simulator's host
// resource a queue needs.
Outcome QueueCreateDestroy(HSAuint32 gpu) {
  constexpr HSAuint64 kRingBytes = 4096;
  HsaMemFlags system{};
  system.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  system.ui32.HostAccess = 1;
  system.ui32.NoSubstitute = 1;
  Outcome first;
  auto note = [&](const char* call, HSAKMT_STATUS s) {
    if (s != HSAKMT_STATUS_SUCCESS && first.ok()) first = Outcome{call, s};
    return s == HSAKMT_STATUS_SUCCESS;
  };
  void* ring = nullptr;
  if (!note("hsaKmtAllocMemory(ring)", hsaKmtAllocMemory(0, kRingBytes, system, &ring))) return first;
  if (note("hsaKmtMapMemoryToGPU", hsaKmtMapMemoryToGPU(ring, kRingBytes, nullptr))) {
    HsaQueueResource queue{};
    if (note("hsaKmtCreateQueue", hsaKmtCreateQueue(gpu, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring,
                                                     kRingBytes, nullptr, &queue))) {
      note("hsaKmtDestroyQueue", hsaKmtDestroyQueue(queue.QueueId));
    }
    note("hsaKmtUnmapMemoryToGPU", hsaKmtUnmapMemoryToGPU(ring));
  }
  note("hsaKmtFreeMemory", hsaKmtFreeMemory(ring, kRingBytes));
  return first;
}

// Issue #24: the simulator's own host resources. A thread the host refuses the engine of a new queue fails
// AMDKFD_IOC_CREATE_QUEUE with ENOMEM (testing/kfd_sim/host/host_thread.h), which libhsakmt answers ERROR (queues.c
// hsaKmtCreateQueue: a failed ioctl); nothing stays behind, and the next queue is made.
TEST(HsakmtFaultTest, AQueueWhoseEngineThreadCannotStartIsRefusedAndLeavesNothing) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  absl::Cleanup close = [] { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); };
  const HSAuint32 gpu = FirstGpuNode();
  ASSERT_NE(gpu, 0u);
  // The first queue of the process starts the doorbell poller, which stays: not part of the count.
  ASSERT_TRUE(QueueCreateDestroy(gpu).ok());
  const SimUsage start = Usage();
  const FaultPlan threads{.only_entry = KernelEntry::kThreadStart};
  absl::StatusOr<std::vector<CountedEntry>> entries =
      CountEntries(threads, [&] { EXPECT_TRUE(QueueCreateDestroy(gpu).ok()); });
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 1u) << "the SDMA engine's thread: " << Describe(*entries);
  FaultPlan fail = threads;
  fail.fail_at = 1;
  Outcome outcome;
  {
    ScopedFaultInjection fault(fail);
    outcome = QueueCreateDestroy(gpu);
    EXPECT_EQ(fault.failed(), 1u);
  }
  EXPECT_EQ(outcome.call, "hsaKmtCreateQueue");
  EXPECT_EQ(outcome.status, HSAKMT_STATUS_ERROR);
  EXPECT_EQ(Usage(), start);
  const Outcome again = QueueCreateDestroy(gpu);
  EXPECT_TRUE(again.ok()) << again.call << " answered " << again.status;
  EXPECT_EQ(Usage(), start);
}

// A host that cannot make the simulator's page file for a kind of memory (its host backing, made when the first buffer
// of the kind a KFD process has is first reached: here the CPU mapping libhsakmt makes of host-accessible memory)
// fails that access with ENOMEM; libhsakmt answers as for any failed allocation of the call. Each such allocation of a
// fresh KFD process is failed in turn; nothing stays behind.
Outcome OpenMemoryAndEventsClose(HSAuint32 gpu) {
  if (const HSAKMT_STATUS s = hsaKmtOpenKFD(); s != HSAKMT_STATUS_SUCCESS) return Outcome{"hsaKmtOpenKFD()", s};
  const Outcome outcome = MemoryAndEvents(gpu);
  if (const HSAKMT_STATUS s = hsaKmtCloseKFD(); s != HSAKMT_STATUS_SUCCESS && outcome.ok()) {
    return Outcome{"hsaKmtCloseKFD()", s};
  }
  return outcome;
}

TEST(HsakmtFaultTest, MemoryWhoseHostBackingCannotBeAllocatedIsRefusedAndLeavesNothing) {
  const HSAuint32 gpu = FirstGpuNodeOfAFreshOpen();
  ASSERT_NE(gpu, 0u);
  const SimUsage start = Usage();
  const FaultPlan host{.only_entry = KernelEntry::kHostAllocation};
  absl::StatusOr<std::vector<CountedEntry>> entries =
      CountEntries(host, [&] { EXPECT_TRUE(OpenMemoryAndEventsClose(gpu).ok()); });
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_GE(entries->size(), 2u) << Describe(*entries);
  int refused = 0;
  for (size_t k = 1; k <= entries->size(); ++k) {
    SCOPED_TRACE(testing::Message() << "failing host allocation " << k << " of " << entries->size());
    FaultPlan fail = host;
    fail.fail_at = k;
    Outcome outcome;
    {
      ScopedFaultInjection fault(fail);
      outcome = OpenMemoryAndEventsClose(gpu);
      EXPECT_EQ(fault.failed(), 1u);
    }
    // The open's MMIO page is worked around (fmm.c map_mmio: the GPU is opened without it); a buffer or the event
    // page is refused.
    if (!outcome.ok()) {
      EXPECT_EQ(outcome.status, ExpectedStatus(outcome.call)) << outcome.call;
      ++refused;
    }
    EXPECT_EQ(Usage(), start);
    const Outcome again = OpenMemoryAndEventsClose(gpu);
    EXPECT_TRUE(again.ok()) << again.call << " answered " << again.status;
    EXPECT_EQ(Usage(), start);
  }
  EXPECT_GE(refused, 2);  // the VRAM buffer and the event page at least
}

}  // namespace
