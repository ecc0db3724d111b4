// fork() and the hsaKmt C API, as kfdtest's forking tests use it: the child starts without a KFD (but, as upstream,
// holding the parent's open count, which hsaKmtCloseKFD counts down), opens its own on a fresh simulated machine,
// may allocate, map, copy with an SDMA queue and close, and leaves with exit() (not _exit): no static destructor
// or atexit handler of the parent's may hang it or harm the parent (the parent's sysfs tree stays). The parent's
// KFD, queues, events and memory keep working. The child reports through its exit code (the number of the
// first step that went wrong), never gtest; every step runs under a 1 s alarm so nothing can hang.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "absl/cleanup/cleanup.h"

#include "gpu_abi/sdma_packets.h"
#include "absl/base/config.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"

namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;

constexpr HSAuint64 kRingBytes = 4096;

HsaMemFlags SystemMemory() {
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  flags.ui32.NonPaged = 1;
  return flags;
}

HSAuint32 FirstGpuNode() {
  HsaSystemProperties sys{};
  if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) return 0;
  for (HSAuint32 n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties props{};
    if (hsaKmtGetNodeProperties(n, &props) == HSAKMT_STATUS_SUCCESS && props.KFDGpuID != 0) return n;
  }
  return 0;
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

// Arms a 1 s alarm for the step that follows (SIGALRM's default action ends the child).
#define STEP(n, ok)          \
  do {                       \
    alarm(1);                \
    if (!(ok)) std::exit(n); \
  } while (0)

// As STEP, for a step that waits for the other process: 10 s.
#define SLOW_STEP(n, ok)     \
  do {                       \
    alarm(10);               \
    if (!(ok)) std::exit(n); \
  } while (0)

// Forks; the child runs `body` and exit(0)s. Returns the child's pid (-1 when fork failed).
template <typename Body>
pid_t ForkChild(Body body) {
  const pid_t child = fork();
  if (child == 0) {
    body();
    alarm(1);
    std::exit(0);  // static destructors and atexit handlers run, as after kfdtest's child
  }
  return child;
}

// Reaps `child` within `limit` (killing it after) and returns its wait status, -2 when it hung, -1 for no child.
int WaitChild(pid_t child, std::chrono::seconds limit = std::chrono::seconds(20)) {
  if (child < 0) return -1;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status;
}

// ForkChild, then WaitChild: the child's wait status.
template <typename Body>
int RunChild(Body body, std::chrono::seconds limit = std::chrono::seconds(20)) {
  return WaitChild(ForkChild(body), limit);
}

std::string Describe(int status) {
  if (status == -2) return "child hung and was killed";
  if (WIFEXITED(status)) return "child exited with " + std::to_string(WEXITSTATUS(status)) + " (first failed step)";
  if (WIFSIGNALED(status)) return "child killed by signal " + std::to_string(WTERMSIG(status)) + " (14: a step hung)";
  return "child status " + std::to_string(status);
}

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
  EXPECT_EQ(status, 0) << Describe(status);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);  // the second open's reference
  ExpectParentWorks();
}

// ThreadSanitizer refuses to start threads in the child of a multi-threaded fork ("starting new threads after
// multi-threaded fork is not supported"), and a child that opens its own KFD starts engine threads; the parent
// here always has some (its engines and the doorbell poller). These tests run under every other configuration.
#ifdef ABSL_HAVE_THREAD_SANITIZER
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif

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
  EXPECT_EQ(status, 0) << Describe(status);

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

// What most of kfdtest's forking children do: nothing with the KFD, then exit(). Also with the parent's
// sysfs tree checked before and after (the child's exit() must not remove it).
TEST_F(HsakmtForkTest, ChildThatDoesNothingExitsCleanlyAndLeavesTheParentsTopology) {
  if (kThreadSanitizer) GTEST_SKIP() << "TSan cannot run threads in a forked child of a multi-threaded process";
  const int status = RunChild([] {});
  EXPECT_EQ(status, 0) << Describe(status);
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
  EXPECT_EQ(status, 0) << Describe(status);
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
  EXPECT_EQ(status, 0) << Describe(status);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Available(gpu_) != before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(Available(gpu_), before) << "the last holder's exit gave the VRAM back";
  for (int fd : {up[0], up[1], down[0], down[1]}) close(fd);
}

}  // namespace
