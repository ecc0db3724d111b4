// fork() and the hsaKmt C API, as kfdtest's forking tests use it: the child starts without a KFD (but, as upstream,
// holding the parent's open count, which hsaKmtCloseKFD counts down), opens its own on a fresh simulated machine,
// may allocate, map, copy with an SDMA queue and close, and leaves with exit() (not _exit): no static destructor
// or atexit handler of the parent's may hang it or harm the parent (the parent's sysfs tree stays). The parent's
// KFD, queues, events and memory keep working. The child reports through its exit code (the number of the
// first step that went wrong), never gtest; every step runs under an alarm (kChildStepSeconds) so nothing can hang.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"
#include "thunk/hsakmt_fork_child.h"

namespace {

using ::hipmem_testing::FirstGpuNode;

namespace sdma = ::hipmem::gpu_abi::sdma;
using ::hipmem_testing::DescribeChild;
using ::hipmem_testing::ForkChild;
using ::hipmem_testing::kThreadSanitizer;
using ::hipmem_testing::RunChild;
using ::hipmem_testing::WaitChild;

constexpr HSAuint64 kRingBytes = 4096;

HsaMemFlags SystemMemory() {
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  flags.ui32.NonPaged = 1;
  return flags;
}

// kfdtest's SDMAQueue::SubmitPacket: the write pointer, then the doorbell, each one plain store (a release store is
// the `mov` kfdtest's barrier + volatile store compiles to, and one ThreadSanitizer understands).
void Ring(const HsaQueueResource& q, uint64_t wptr_bytes) {
  std::atomic_ref<HSAuint64>(*q.Queue_write_ptr_aql).store(wptr_bytes, std::memory_order_release);
  std::atomic_ref<HSAuint64>(*q.Queue_DoorBell_aql).store(wptr_bytes, std::memory_order_release);
}

// Runs `packet` (`bytes` bytes of SDMA packets) on an SDMA queue of `node`, rung by plain stores as kfdtest's
// SDMAQueue, followed by a FENCE + TRAP; waits for the trap's event. True when it came and everything was cleaned up.
bool SdmaRun(HSAuint32 node, const void* packet, size_t bytes) {
  void* ring = nullptr;
  if (hsaKmtAllocMemory(0, kRingBytes, SystemMemory(), &ring) != HSAKMT_STATUS_SUCCESS) return false;
  if (hsaKmtMapMemoryToGPU(ring, kRingBytes, nullptr) != HSAKMT_STATUS_SUCCESS) return false;
  HsaQueueResource q{};
  if (hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, kRingBytes, nullptr, &q) !=
      HSAKMT_STATUS_SUCCESS) {
    return false;
  }
  HsaEventDescriptor desc{};
  desc.EventType = HSA_EVENTTYPE_SIGNAL;
  desc.NodeId = node;
  HsaEvent* event = nullptr;
  if (hsaKmtCreateEvent(&desc, true, false, &event) != HSAKMT_STATUS_SUCCESS) return false;
  const sdma::Fence fence = sdma::MakeFence(event->EventData.HWData2, event->EventId);
  const sdma::Trap trap = sdma::MakeTrap(event->EventId);
  auto* p = static_cast<char*>(ring);
  std::memcpy(p, packet, bytes);
  std::memcpy(p + bytes, &fence, sizeof(fence));
  std::memcpy(p + bytes + sizeof(fence), &trap, sizeof(trap));
  Ring(q, bytes + sizeof(fence) + sizeof(trap));
  const bool woke = hsaKmtWaitOnEvent(event, 1000) == HSAKMT_STATUS_SUCCESS;
  const bool cleaned = hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS &&
                       hsaKmtDestroyEvent(event) == HSAKMT_STATUS_SUCCESS &&
                       hsaKmtFreeMemory(ring, kRingBytes) == HSAKMT_STATUS_SUCCESS;
  return woke && cleaned;
}

// Copies `bytes` from `src` to `dst` with SdmaRun. True when the copy arrived (both are CPU-visible).
bool SdmaCopy(HSAuint32 node, void* dst, const void* src, HSAuint32 bytes) {
  const sdma::CopyLinear copy = sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), bytes);
  return SdmaRun(node, &copy, sizeof(copy)) && std::memcmp(dst, src, bytes) == 0;
}

// Steps of the child (hsakmt_fork_child.h).
#define STEP(n, ok) HSAKMT_CHILD_STEP(n, ok)
#define SLOW_STEP(n, ok) HSAKMT_CHILD_SLOW_STEP(n, ok)

class HsakmtForkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    gpu_ = FirstGpuNode();
    ASSERT_NE(gpu_, 0u);
  }
  void TearDown() override { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); }

  // The parent's KFD still copies with a fresh queue and still sees its own memory.
  void ExpectParentWorks() {
    void* src = nullptr;
    void* dst = nullptr;
    ASSERT_EQ(hsaKmtAllocMemory(0, 8192, SystemMemory(), &src), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(hsaKmtAllocMemory(0, 8192, SystemMemory(), &dst), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(hsaKmtMapMemoryToGPU(src, 8192, nullptr), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(hsaKmtMapMemoryToGPU(dst, 8192, nullptr), HSAKMT_STATUS_SUCCESS);
    std::memset(src, 0x3c, 8192);
    EXPECT_TRUE(SdmaCopy(gpu_, dst, src, 8192));
    EXPECT_EQ(hsaKmtFreeMemory(src, 8192), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(hsaKmtFreeMemory(dst, 8192), HSAKMT_STATUS_SUCCESS);
  }

  HSAuint32 gpu_ = 0;
};

TEST_F(HsakmtForkTest, ChildStartsClosedHoldingTheParentsCountAndOpensItsOwn) {
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_KERNEL_ALREADY_OPENED) << "a second open counts";
  const int status = RunChild([] {
    HsaVersionInfo version{};
    void* p = nullptr;
    STEP(1, hsaKmtGetVersion(&version) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    STEP(2, hsaKmtAllocMemory(0, 4096, SystemMemory(), &p) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    STEP(3, hsaKmtReleaseSystemProperties() == HSAKMT_STATUS_SUCCESS);  // upstream: no open check
    // Upstream's child inherits hsakmt_kfd_open_count (2 here): close counts it down, closing nothing...
    STEP(4, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    STEP(5, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    STEP(6, hsaKmtCloseKFD() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);  // ...until it is used up
    // A fresh open of the child's own: SUCCESS rather than KERNEL_ALREADY_OPENED.
    STEP(7, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    STEP(8, hsaKmtGetVersion(&version) == HSAKMT_STATUS_SUCCESS && version.KernelInterfaceMajorVersion == 1);
    STEP(9, hsaKmtOpenKFD() == HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
    STEP(10, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    STEP(11, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    STEP(12, hsaKmtCloseKFD() == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  });
  EXPECT_EQ(status, 0) << DescribeChild(status);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);  // the second open's reference
  ExpectParentWorks();
}

TEST_F(HsakmtForkTest, ChildOpensAFreshMachineAllocatesMapsCopiesClosesAndExits) {
  if (kThreadSanitizer) GTEST_SKIP() << "TSan cannot run threads in a forked child of a multi-threaded process";
  // The parent has a live queue, an event and memory while the child runs, and its doorbell poller is running.
  void* ring = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(0, kRingBytes, SystemMemory(), &ring), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtMapMemoryToGPU(ring, kRingBytes, nullptr), HSAKMT_STATUS_SUCCESS);
  HsaQueueResource parent_queue{};
  ASSERT_EQ(hsaKmtCreateQueue(gpu_, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, kRingBytes, nullptr,
                              &parent_queue),
            HSAKMT_STATUS_SUCCESS);
  HsaEventDescriptor desc{};
  desc.EventType = HSA_EVENTTYPE_SIGNAL;
  desc.NodeId = gpu_;
  HsaEvent* parent_event = nullptr;
  ASSERT_EQ(hsaKmtCreateEvent(&desc, true, false, &parent_event), HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties parent_sys{};
  ASSERT_EQ(hsaKmtAcquireSystemProperties(&parent_sys), HSAKMT_STATUS_SUCCESS);
  const HSAuint32 gpu = gpu_;
  const HSA_QUEUEID parent_queue_id = parent_queue.QueueId;

  const int status = RunChild([&] {
    STEP(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    // The same default topology (HIPMEM_SIM_PRESET), on a machine of the child's own.
    HsaSystemProperties sys{};
    STEP(2, hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS && sys.NumNodes == parent_sys.NumNodes);
    STEP(3, FirstGpuNode() == gpu);
    // The parent's queue is not one of the child's, and nothing of it is touched.
    STEP(4, hsaKmtDestroyQueue(parent_queue_id) == HSAKMT_STATUS_INVALID_PARAMETER);
    void* src = nullptr;
    void* dst = nullptr;
    STEP(5, hsaKmtAllocMemory(0, 65536, SystemMemory(), &src) == HSAKMT_STATUS_SUCCESS);
    STEP(6, hsaKmtAllocMemory(0, 65536, SystemMemory(), &dst) == HSAKMT_STATUS_SUCCESS);
    STEP(7, hsaKmtMapMemoryToGPU(src, 65536, nullptr) == HSAKMT_STATUS_SUCCESS);
    STEP(8, hsaKmtMapMemoryToGPU(dst, 65536, nullptr) == HSAKMT_STATUS_SUCCESS);
    for (int i = 0; i < 65536; ++i) static_cast<char*>(src)[i] = static_cast<char>(i * 5);
    STEP(9, SdmaCopy(gpu, dst, src, 65536));
    STEP(10, hsaKmtUnmapMemoryToGPU(src) == HSAKMT_STATUS_SUCCESS);
    STEP(11, hsaKmtFreeMemory(src, 65536) == HSAKMT_STATUS_SUCCESS);
    // dst is left allocated and the KFD left open once: exit() must still end the child cleanly.
    // The child's open forgot the inherited references (clear_after_fork): opens and closes count its own.
    STEP(12, hsaKmtOpenKFD() == HSAKMT_STATUS_KERNEL_ALREADY_OPENED);
    STEP(13, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  });
  EXPECT_EQ(status, 0) << DescribeChild(status);

  // The parent's queue, event and memory still work; its sysfs tree is still there.
  HsaNodeProperties props{};
  EXPECT_EQ(hsaKmtGetNodeProperties(gpu_, &props), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtSetEvent(parent_event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent(parent_event, 1000), HSAKMT_STATUS_SUCCESS);
  const sdma::Fence fence = sdma::MakeFence(parent_event->EventData.HWData2, parent_event->EventId);
  const sdma::Trap trap = sdma::MakeTrap(parent_event->EventId);
  ASSERT_EQ(hsaKmtResetEvent(parent_event), HSAKMT_STATUS_SUCCESS);
  std::memcpy(ring, &fence, sizeof(fence));
  std::memcpy(static_cast<char*>(ring) + sizeof(fence), &trap, sizeof(trap));
  Ring(parent_queue, sizeof(fence) + sizeof(trap));
  EXPECT_EQ(hsaKmtWaitOnEvent(parent_event, 1000), HSAKMT_STATUS_SUCCESS) << "the parent's queue still runs";
  EXPECT_EQ(hsaKmtDestroyQueue(parent_queue.QueueId), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(parent_event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtFreeMemory(ring, kRingBytes), HSAKMT_STATUS_SUCCESS);
  ExpectParentWorks();
  // A second child after the first: forks keep working.
  EXPECT_EQ(RunChild([] { STEP(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS); }), 0);
  ExpectParentWorks();
}

// The counter properties and traces are the process's: a child has none until it opens its own KFD, and then not
// the parent's trace ids; the parent's cache and traces are untouched.
TEST_F(HsakmtForkTest, ChildHasNoneOfTheParentsCountersAndBuildsItsOwn) {
  if (kThreadSanitizer) GTEST_SKIP() << "TSan cannot run threads in a forked child of a multi-threaded process";
  HsaCounterProperties* parent_props = nullptr;
  ASSERT_EQ(hsaKmtPmcGetCounterProperties(gpu_, &parent_props), HSAKMT_STATUS_SUCCESS);
  HsaCounter counter;
  std::memset(&counter, 0, sizeof(counter));
  counter.Type = HSA_PROFILE_TYPE_PRIVILEGED_IMMEDIATE;  // hand-built: no table lists a privileged counter
  counter.CounterSizeInBits = 64;
  counter.BlockIndex = 14;  // SQ
  HsaPmcTraceRoot root{};
  ASSERT_EQ(hsaKmtPmcRegisterTrace(gpu_, 1, &counter, &root), HSAKMT_STATUS_SUCCESS);
  const HSATraceId parent_trace = root.TraceId;
  const HSAuint32 gpu = gpu_;

  const int status = RunChild([&] {
    HsaCounterProperties* props = nullptr;
    STEP(1, hsaKmtPmcGetCounterProperties(gpu, &props) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    STEP(2, hsaKmtPmcReleaseTraceAccess(0, parent_trace) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    STEP(3, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    STEP(4, hsaKmtPmcReleaseTraceAccess(0, parent_trace) == HSAKMT_STATUS_INVALID_HANDLE);
    STEP(5, hsaKmtPmcGetCounterProperties(gpu, &props) == HSAKMT_STATUS_SUCCESS && props != nullptr &&
                props->NumBlocks == parent_props->NumBlocks);
    STEP(6, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  });
  EXPECT_EQ(status, 0) << DescribeChild(status);

  HsaCounterProperties* again = nullptr;
  EXPECT_EQ(hsaKmtPmcGetCounterProperties(gpu_, &again), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(again, parent_props);
  EXPECT_EQ(hsaKmtPmcUnregisterTrace(gpu_, parent_trace), HSAKMT_STATUS_SUCCESS);
}

// An event the parent created is not an event of the child's: before the child opens a KFD every call answers
// KERNEL_IO_CHANNEL_NOT_OPENED; after, the parent's event is refused (HSAKMT_STATUS_ERROR, the kernel's answer for
// an id the process does not have) even where its id names one of the child's own events, which stays untouched.
TEST_F(HsakmtForkTest, ChildCannotUseTheParentsEventsAgainstItsOwnKfd) {
  if (kThreadSanitizer) GTEST_SKIP() << "TSan cannot run threads in a forked child of a multi-threaded process";
  HsaEventDescriptor desc{};
  desc.EventType = HSA_EVENTTYPE_SIGNAL;
  desc.NodeId = gpu_;
  HsaEvent* parent_event = nullptr;
  ASSERT_EQ(hsaKmtCreateEvent(&desc, true, false, &parent_event), HSAKMT_STATUS_SUCCESS);

  const int status = RunChild([&] {
    STEP(1, hsaKmtSetEvent(parent_event) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    STEP(2, hsaKmtWaitOnEvent(parent_event, 0) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    STEP(3, hsaKmtDestroyEvent(parent_event) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
    STEP(4, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    // The child's first event on its fresh KFD gets the id the parent's first event has.
    HsaEvent* own = nullptr;
    STEP(5, hsaKmtCreateEvent(&desc, true, false, &own) == HSAKMT_STATUS_SUCCESS);
    STEP(6, own->EventId == parent_event->EventId);
    STEP(7, hsaKmtSetEvent(parent_event) == HSAKMT_STATUS_ERROR);
    STEP(8, hsaKmtWaitOnEvent(own, 0) == HSAKMT_STATUS_WAIT_TIMEOUT);  // not set through the parent's event
    STEP(9, hsaKmtResetEvent(parent_event) == HSAKMT_STATUS_ERROR);
    STEP(10, hsaKmtWaitOnEvent(parent_event, 0) == HSAKMT_STATUS_ERROR);
    HsaEvent* both[] = {own, parent_event};
    STEP(11, hsaKmtWaitOnMultipleEvents(both, 2, false, 0) == HSAKMT_STATUS_ERROR);
    STEP(12, hsaKmtDestroyEvent(parent_event) == HSAKMT_STATUS_ERROR);
    // The child's own event is still there and works.
    STEP(13, hsaKmtSetEvent(own) == HSAKMT_STATUS_SUCCESS);
    STEP(14, hsaKmtWaitOnEvent(own, 1000) == HSAKMT_STATUS_SUCCESS);
    STEP(15, hsaKmtDestroyEvent(own) == HSAKMT_STATUS_SUCCESS);
    STEP(16, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
  });
  EXPECT_EQ(status, 0) << DescribeChild(status);
  // The parent's event is untouched by all of that.
  EXPECT_EQ(hsaKmtWaitOnEvent(parent_event, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(hsaKmtSetEvent(parent_event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent(parent_event, 1000), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(parent_event), HSAKMT_STATUS_SUCCESS);
}

// What most of kfdtest's forking children do: nothing with the KFD, then exit(). Also with the parent's
// sysfs tree checked before and after (the child's exit() must not remove it).
TEST_F(HsakmtForkTest, ChildThatDoesNothingExitsCleanlyAndLeavesTheParentsTopology) {
  if (kThreadSanitizer) GTEST_SKIP() << "TSan cannot run threads in a forked child of a multi-threaded process";
  const int status = RunChild([] {});
  EXPECT_EQ(status, 0) << DescribeChild(status);
  // The parent rereads its topology from its (simulated) sysfs: a tree removed by the child would fail here.
  ASSERT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  EXPECT_EQ(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
  EXPECT_GT(sys.NumNodes, 1u);
  ExpectParentWorks();
}

// ---- IPC share handles across fork (the DKMS ioctls; kfdtest's KFDIPCTest) ----

HsaMemFlags InvisibleVram() {  // what BasicTest shares: NonPaged, CoarseGrain, no HostAccess
  HsaMemFlags flags{};
  flags.ui32.NonPaged = 1;
  flags.ui32.CoarseGrain = 1;
  return flags;
}

// Fills `bytes` of `dst` (any GPU VA mapped on `node`) with `value` through an SDMA WRITE from a system buffer: the
// CPU cannot touch invisible VRAM.
bool SdmaFill(HSAuint32 node, void* dst, HSAuint32 value, HSAuint32 bytes) {
  void* sys = nullptr;
  if (hsaKmtAllocMemory(0, bytes, SystemMemory(), &sys) != HSAKMT_STATUS_SUCCESS) return false;
  const bool mapped = hsaKmtMapMemoryToGPU(sys, bytes, nullptr) == HSAKMT_STATUS_SUCCESS;
  for (HSAuint32 i = 0; i < bytes / 4; ++i) static_cast<HSAuint32*>(sys)[i] = value;
  const sdma::CopyLinear copy = sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(sys), bytes);
  const bool copied = mapped && SdmaRun(node, &copy, sizeof(copy));
  return hsaKmtFreeMemory(sys, bytes) == HSAKMT_STATUS_SUCCESS && copied;
}

// Whether every word of `bytes` (a multiple of 4) at `src` (a GPU VA mapped on `node`) is `value`, read back by SDMA
// into system memory.
bool SdmaHolds(HSAuint32 node, const void* src, HSAuint32 value, HSAuint32 bytes) {
  const HSAuint64 buffer_bytes = (bytes + 4095) / 4096 * 4096;
  void* sys = nullptr;
  if (hsaKmtAllocMemory(0, buffer_bytes, SystemMemory(), &sys) != HSAKMT_STATUS_SUCCESS) return false;
  const bool mapped = hsaKmtMapMemoryToGPU(sys, buffer_bytes, nullptr) == HSAKMT_STATUS_SUCCESS;
  const sdma::CopyLinear copy = sdma::MakeCopy(reinterpret_cast<uint64_t>(sys), reinterpret_cast<uint64_t>(src), bytes);
  bool holds = mapped && SdmaRun(node, &copy, sizeof(copy));
  for (HSAuint32 i = 0; holds && i < bytes / 4; ++i) holds = static_cast<const HSAuint32*>(sys)[i] == value;
  return hsaKmtFreeMemory(sys, buffer_bytes) == HSAKMT_STATUS_SUCCESS && holds;
}

HSAuint64 Available(HSAuint32 node) {
  HSAuint64 available = 0;
  EXPECT_EQ(hsaKmtAvailableMemory(node, &available), HSAKMT_STATUS_SUCCESS);
  return available;
}

// kfdtest's KFDIPCTest.BasicTest, step for step, through the C API only: fork first; the parent fills invisible VRAM
// by SDMA, shares it and sends the handle down a pipe; the child, with a KFD (and simulated machine) of its own,
// registers the handle, maps it, reads 0xAAAAAAAA with SDMA, writes 0xBBBBBBBB and checks what QueryPointerInfo
// says; the parent then reads 0xBBBBBBBB. Two OS processes, two simulators: the pages travel by the exporter's
// IPC socket.
TEST_F(HsakmtForkTest, IpcBasicTestSharesVramWithAForkedChildThroughAPipe) {
  if (kThreadSanitizer) GTEST_SKIP() << "TSan cannot run threads in a forked child of a multi-threaded process";
  constexpr HSAuint32 kBytes = 4096;
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const HSAuint32 node = gpu_;
  const HsaMemFlags mflags = InvisibleVram();
  const pid_t child = ForkChild([&] {
    close(pipefd[1]);
    // kfdtest's child: TearDown() and SetUp(), i.e. close the inherited KFD and open its own.
    STEP(1, hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
    STEP(2, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    HsaSharedMemoryHandle handle{};
    SLOW_STEP(3, read(pipefd[0], &handle, sizeof(handle)) == static_cast<ssize_t>(sizeof(handle)));
    void* shared = nullptr;
    HSAuint64 size = 0;
    STEP(4, hsaKmtRegisterSharedHandle(&handle, &shared, &size) == HSAKMT_STATUS_SUCCESS && size == kBytes);
    HsaMemMapFlags map_flags{};
    HSAuint32 nodes[] = {node};
    STEP(5, hsaKmtMapMemoryToGPUNodes(shared, size, nullptr, map_flags, 1, nodes) == HSAKMT_STATUS_SUCCESS);
    STEP(6, SdmaHolds(node, shared, 0xAAAAAAAA, kBytes));
    const sdma::WriteLinear<1> write = sdma::MakeWrite<1>(reinterpret_cast<uint64_t>(shared), {0xBBBBBBBB});
    STEP(7, SdmaRun(node, &write, sizeof(write)));
    HsaPointerInfo info{};
    STEP(8, hsaKmtQueryPointerInfo(shared, &info) == HSAKMT_STATUS_SUCCESS);
    STEP(9, info.Type == HSA_POINTER_REGISTERED_SHARED && info.Node == node);
    STEP(10, info.GPUAddress == reinterpret_cast<HSAuint64>(shared) && info.SizeInBytes == size);
    STEP(11, info.MemFlags.Value == mflags.Value);  // the exporter's flags, through both kernels
    STEP(12, hsaKmtUnmapMemoryToGPU(shared) == HSAKMT_STATUS_SUCCESS);
    STEP(13, hsaKmtDeregisterMemory(shared) == HSAKMT_STATUS_SUCCESS);
  });
  ASSERT_GT(child, 0);
  close(pipefd[0]);
  bool pipe_open = true;
  absl::Cleanup reap = [&] {  // on a failed step below: the child gets EOF instead of waiting for its alarm
    if (pipe_open) close(pipefd[1]);
    WaitChild(child);
  };

  void* vram = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(gpu_, kBytes, mflags, &vram), HSAKMT_STATUS_SUCCESS);
  HsaMemMapFlags map_flags{};
  HSAuint64 alternate = 0;
  HSAuint32 nodes[] = {gpu_};
  ASSERT_EQ(hsaKmtMapMemoryToGPUNodes(vram, kBytes, &alternate, map_flags, 1, nodes), HSAKMT_STATUS_SUCCESS);
  ASSERT_TRUE(SdmaFill(gpu_, vram, 0xAAAAAAAA, kBytes));
  HsaSharedMemoryHandle handle{};
  ASSERT_EQ(hsaKmtShareMemory(vram, kBytes, &handle), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(write(pipefd[1], &handle, sizeof(handle)), static_cast<ssize_t>(sizeof(handle)));
  close(pipefd[1]);
  pipe_open = false;

  std::move(reap).Cancel();
  const int status = WaitChild(child);
  EXPECT_EQ(status, 0) << DescribeChild(status);
  // The child wrote one word: the first is 0xBBBBBBBB, the rest still the parent's pattern.
  EXPECT_TRUE(SdmaHolds(gpu_, vram, 0xBBBBBBBB, 4)) << "the child's SDMA write reached the parent's VRAM";
  EXPECT_TRUE(SdmaHolds(gpu_, static_cast<char*>(vram) + 4, 0xAAAAAAAA, kBytes - 4));
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(vram), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtFreeMemory(vram, kBytes), HSAKMT_STATUS_SUCCESS);
}

// The kernel keeps a shared buffer alive while any process imports it: the exporter frees its VRAM, the child still
// reads it; the exporter's VRAM comes back only once the child has let go (here by exiting without deregistering).
TEST_F(HsakmtForkTest, IpcImportInAnotherProcessKeepsTheBufferAfterTheExporterFreesIt) {
  if (kThreadSanitizer) GTEST_SKIP() << "TSan cannot run threads in a forked child of a multi-threaded process";
  constexpr HSAuint32 kBytes = 65536;
  const HSAuint64 before = Available(gpu_);
  void* vram = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(gpu_, kBytes, InvisibleVram(), &vram), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtMapMemoryToGPU(vram, kBytes, nullptr), HSAKMT_STATUS_SUCCESS);
  ASSERT_TRUE(SdmaFill(gpu_, vram, 0xCCCCCCCC, kBytes));
  HsaSharedMemoryHandle handle{};
  ASSERT_EQ(hsaKmtShareMemory(vram, kBytes, &handle), HSAKMT_STATUS_SUCCESS);
  int up[2];
  int down[2];
  ASSERT_EQ(pipe(up), 0);
  ASSERT_EQ(pipe(down), 0);
  const HSAuint32 node = gpu_;
  const pid_t child = ForkChild([&] {
    STEP(1, hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
    void* shared = nullptr;
    HSAuint64 size = 0;
    STEP(2, hsaKmtRegisterSharedHandle(&handle, &shared, &size) == HSAKMT_STATUS_SUCCESS);
    STEP(3, hsaKmtMapMemoryToGPU(shared, size, nullptr) == HSAKMT_STATUS_SUCCESS);
    STEP(4, write(up[1], "i", 1) == 1);
    char c = 0;
    SLOW_STEP(5, read(down[0], &c, 1) == 1 && c == 'f');  // the parent has freed its buffer
    STEP(6, SdmaHolds(node, shared, 0xCCCCCCCC, kBytes));
    // Leaves holding the import: the exit releases it.
  });
  ASSERT_GT(child, 0);
  absl::Cleanup reap = [&] { WaitChild(child); };
  char c = 0;
  ASSERT_EQ(read(up[0], &c, 1), 1);
  ASSERT_EQ(hsaKmtFreeMemory(vram, kBytes), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(Available(gpu_), before - kBytes) << "the child's import holds the parent's VRAM";
  ASSERT_EQ(write(down[1], "f", 1), 1);
  std::move(reap).Cancel();
  const int status = WaitChild(child);
  EXPECT_EQ(status, 0) << DescribeChild(status);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Available(gpu_) != before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(Available(gpu_), before) << "the last holder's exit gave the VRAM back";
  for (int fd : {up[0], up[1], down[0], down[1]}) close(fd);
}

}  // namespace
