// kfdtest-style conformance through the C API only (hsakmt.h, kfd_ioctl.h and the gpu_abi packet builders), on
// the default machine or on the one HIPMEM_SIM_PRESET names, with kfdtest's scaffolding (kfdtest_c_api_fixture.h).
// Behaviour follows KFDQMTest, KFDEventTest and KFDMemoryTest; the code is ours.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu_abi/pm4_packets.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/kfdtest_c_api_fixture.h"

namespace {

using ::hipmem_testing::KfdtestCApiTest;
using ::hipmem_testing::kRingBytes;
using ::hipmem_testing::kTimeoutMs;
using ::hipmem_testing::Ring;
using ::hipmem_testing::WaitUntil;
namespace pm4 = ::hipmem::gpu_abi::pm4;
namespace sdma = ::hipmem::gpu_abi::sdma;

// ---- KFDQMTest: PM4 compute queues (CreateCpQueue, SubmitNopCpQueue, CpQueueWraparound's consumption) ----

TEST_F(KfdtestCApiTest, Pm4QueueWriteDataAndReleaseMemWakeTheEvent) {
  for (HSAuint32 node : gpus_) {
    SCOPED_TRACE(testing::Message() << "node " << node);
    Ring queue(node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
    ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
    ASSERT_NE(queue.resource().Queue_DoorBell, nullptr);
    ASSERT_NE(queue.resource().Queue_read_ptr, nullptr);
    ASSERT_NE(queue.resource().Queue_write_ptr, nullptr);
    EXPECT_EQ(queue.RptrDwords(), 0u);

    auto* dst = static_cast<volatile uint32_t*>(HostBuffer(4096, node));
    HsaEvent* event = NewEvent(HSA_EVENTTYPE_SIGNAL, node);
    ASSERT_NE(event, nullptr);
    queue.Place(pm4::MakeWriteData(reinterpret_cast<uint64_t>(dst), {0x12345678u, 0x9abcdef0u}));
    ASSERT_EQ(queue.SignalAndWait(event), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(dst[0], 0x12345678u);
    EXPECT_EQ(dst[1], 0x9abcdef0u);
    EXPECT_TRUE(WaitUntil([&] { return queue.Consumed(); })) << queue.RptrDwords() << " vs " << queue.WptrDwords();

    // A second round on the same queue and event (manual reset): reset, then signalled again.
    ASSERT_EQ(hsaKmtResetEvent(event), HSAKMT_STATUS_SUCCESS);
    queue.Place(pm4::MakeWriteData(reinterpret_cast<uint64_t>(dst) + 8, {7u}));
    ASSERT_EQ(queue.SignalAndWait(event), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(dst[2], 7u);
  }
}

TEST_F(KfdtestCApiTest, Pm4NopsAreConsumedUntilTheReadPointerReachesTheWritePointer) {
  const HSAuint32 node = gpus_[0];
  Ring queue(node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  for (int i = 0; i < 10; ++i) queue.Place(pm4::MakeNop());
  queue.Place(pm4::MakeNop(8));
  queue.Submit();
  EXPECT_TRUE(WaitUntil([&] { return queue.Consumed(); })) << queue.RptrDwords() << " vs " << queue.WptrDwords();
  EXPECT_EQ(queue.RptrDwords(), 18u);
  // More after the first batch: the queue keeps going from where it stopped.
  for (int i = 0; i < 100; ++i) queue.Place(pm4::MakeNop());
  queue.Submit();
  EXPECT_TRUE(WaitUntil([&] { return queue.Consumed(); }));
  EXPECT_EQ(queue.RptrDwords(), 118u);
}

// A PM4 dispatch runs its shader on these GFX9 GPUs. One with a workgroup size but COMPUTE_PGM_LO/HI never set
// fetches its first instruction at VA 0, which no process maps: a VM fault that halts the queue at the dispatch and
// reports the faulting page through the memory exception event, as amdkfd reports a GPU VM fault.
TEST_F(KfdtestCApiTest, Pm4DispatchOfAShaderAtAnUnmappedAddressFaultsAndHaltsTheQueue) {
  const HSAuint32 node = gpus_[0];
  HsaEvent* fault = NewEvent(HSA_EVENTTYPE_MEMORY, node);
  ASSERT_NE(fault, nullptr);
  auto* dst = static_cast<volatile uint32_t*>(HostBuffer(4096, node));
  Ring queue(node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Place(pm4::MakeSetShReg(pm4::kComputeNumThreadX, {64u, 1u, 1u}));
  queue.Place(pm4::MakeDispatchDirect(1, 1, 1));
  queue.Place(pm4::MakeWriteData(reinterpret_cast<uint64_t>(dst), {1u}));
  queue.Submit();
  ASSERT_EQ(hsaKmtWaitOnEvent(fault, kTimeoutMs), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(fault->EventData.EventType, HSA_EVENTTYPE_MEMORY);
  EXPECT_EQ(fault->EventData.EventData.MemoryAccessFault.VirtualAddress, 0u);
  EXPECT_EQ(dst[0], 0u) << "nothing after the dispatch runs";
  EXPECT_EQ(queue.RptrDwords(), 5u) << "the read pointer stops at the dispatch, after the SET_SH_REG";
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS) << "a halted queue is destroyed without hanging";
}

// ---- KFDQMTest: SDMA queues (CreateSdmaQueue, SdmaConcurrentCopies' copy, SdmaFill) on every GPU ----

TEST_F(KfdtestCApiTest, SdmaQueueCopiesAndTheFenceAndTrapWakeTheEventOnEveryGpu) {
  constexpr HSAuint32 kBytes = 64 * 1024;
  for (HSAuint32 node : gpus_) {
    SCOPED_TRACE(testing::Message() << "node " << node);
    Ring queue(node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
    ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
    auto* src = static_cast<uint8_t*>(HostBuffer(kBytes, node));
    auto* dst = static_cast<uint8_t*>(HostBuffer(kBytes, node));
    auto* fill = static_cast<uint32_t*>(HostBuffer(4096, node));
    for (HSAuint32 i = 0; i < kBytes; ++i) src[i] = static_cast<uint8_t>(i * 7 + node);
    HsaEvent* event = NewEvent(HSA_EVENTTYPE_SIGNAL, node);
    ASSERT_NE(event, nullptr);
    queue.PlaceStruct(sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), kBytes));
    queue.PlaceStruct(sdma::MakeFill(reinterpret_cast<uint64_t>(fill), 0xc0ffee00u + node, 4096));
    ASSERT_EQ(queue.SignalAndWait(event), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(std::memcmp(dst, src, kBytes), 0);
    EXPECT_EQ(fill[0], 0xc0ffee00u + node);
    EXPECT_EQ(fill[1023], 0xc0ffee00u + node);
    EXPECT_TRUE(WaitUntil([&] { return queue.Consumed(); }));
  }
}

TEST_F(KfdtestCApiTest, XgmiSdmaQueueCopiesWhereTheGpuHasXgmiEngines) {
  int tested = 0;
  for (size_t i = 0; i < gpus_.size(); ++i) {
    const HSAuint32 node = gpus_[i];
    Ring queue(node, HSA_QUEUE_SDMA_XGMI, HostBuffer(kRingBytes, node, /*exec=*/true));
    if (props_[i].NumSdmaXgmiEngines == 0) {
      EXPECT_NE(queue.status(), HSAKMT_STATUS_SUCCESS) << "node " << node << " has no XGMI SDMA engine";
      continue;
    }
    ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS) << "node " << node;
    auto* src = static_cast<uint8_t*>(HostBuffer(8192, node));
    auto* dst = static_cast<uint8_t*>(HostBuffer(8192, node));
    std::memset(src, 0x5a, 8192);
    HsaEvent* event = NewEvent(HSA_EVENTTYPE_SIGNAL, node);
    queue.PlaceStruct(sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), 8192));
    ASSERT_EQ(queue.SignalAndWait(event), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(std::memcmp(dst, src, 8192), 0);
    ++tested;
  }
  if (tested == 0) GTEST_SKIP() << "no GPU of this machine has XGMI SDMA engines";
}

// ---- KFDEventTest ----

TEST_F(KfdtestCApiTest, WaitOnMultipleEventsAnyAndAllWithTimeouts) {
  const HSAuint32 node = gpus_[0];
  HsaEvent* events[3] = {NewEvent(HSA_EVENTTYPE_SIGNAL, node), NewEvent(HSA_EVENTTYPE_SIGNAL, node),
                         NewEvent(HSA_EVENTTYPE_SIGNAL, node)};
  for (HsaEvent* e : events) ASSERT_NE(e, nullptr);

  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 3, false, 20), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 3, false, 0), HSAKMT_STATUS_WAIT_TIMEOUT) << "a poll";

  // One set by the GPU: "any" wakes, "all" still times out.
  Ring queue(node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(queue.SignalAndWait(events[1]), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 3, false, kTimeoutMs), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 3, true, 20), HSAKMT_STATUS_WAIT_TIMEOUT);

  // The rest set from the host (one) and the GPU (the other): "all" wakes.
  ASSERT_EQ(hsaKmtSetEvent(events[0]), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(queue.SignalAndWait(events[2]), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 3, true, kTimeoutMs), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 3, true, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
}

TEST_F(KfdtestCApiTest, WaitOnEventExtReportsTheEventAge) {
  const HSAuint32 node = gpus_[0];
  HsaEvent* event = NewEvent(HSA_EVENTTYPE_SIGNAL, node, /*manual_reset=*/false);
  ASSERT_NE(event, nullptr);
  Ring queue(node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);

  // KFD 1.14 event ages: age 0 waits as before and reports nothing; a non-zero age is the one last seen, and
  // a wait returns at once when the event's age has moved on since, even if its signal was consumed.
  uint64_t age = 1;  // a fresh event's age
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(event, 10, &age), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(age, 1u);
  ASSERT_EQ(hsaKmtSetEvent(event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(event, kTimeoutMs, &age), HSAKMT_STATUS_SUCCESS);
  EXPECT_GT(age, 1u) << "the signal aged the event";
  const uint64_t first = age;
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(event, 10, &age), HSAKMT_STATUS_WAIT_TIMEOUT)
      << "the auto-reset signal was consumed and the age has not moved";
  EXPECT_EQ(age, first);
  // The GPU signals and a plain wait consumes it: a wait with the old age still returns at once.
  ASSERT_EQ(queue.SignalAndWait(event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(event, 0, &age), HSAKMT_STATUS_SUCCESS);
  EXPECT_GT(age, first);
  uint64_t ignored = 0;
  EXPECT_EQ(hsaKmtWaitOnEvent_Ext(event, 10, &ignored), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(ignored, 0u) << "age 0 reports nothing";
}

// ---- KFDMemoryTest (host-side behaviours) ----

TEST_F(KfdtestCApiTest, MapMemoryToGpuNodesDropsAndAddsNodes) {
  if (gpus_.size() < 2) GTEST_SKIP() << "needs two GPUs";
  HsaMemFlags flags{};
  flags.ui32.HostAccess = 1;
  flags.ui32.NonPaged = 1;
  void* p = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(0, 8192, flags, &p), HSAKMT_STATUS_SUCCESS);
  buffers_.push_back(p);
  const auto mapped = [&] {
    HsaPointerInfo info{};
    EXPECT_EQ(hsaKmtQueryPointerInfo(p, &info), HSAKMT_STATUS_SUCCESS);
    std::vector<HSAuint32> nodes(info.MappedNodes, info.MappedNodes + info.NMappedNodes);
    std::sort(nodes.begin(), nodes.end());
    return nodes;
  };
  HsaMemMapFlags map_flags{};
  HSAuint32 both[2] = {gpus_[1], gpus_[0]};  // sorted by mapped(); the order given does not matter
  ASSERT_EQ(hsaKmtMapMemoryToGPUNodes(p, 8192, nullptr, map_flags, 2, both), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(mapped(), (std::vector<HSAuint32>{std::min(gpus_[0], gpus_[1]), std::max(gpus_[0], gpus_[1])}));
  // Remapping with a smaller list drops the GPU left out...
  ASSERT_EQ(hsaKmtMapMemoryToGPUNodes(p, 8192, nullptr, map_flags, 1, &gpus_[1]), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(mapped(), (std::vector<HSAuint32>{gpus_[1]}));
  // ...and the GPU that still maps it reaches it.
  {
    Ring queue(gpus_[1], HSA_QUEUE_SDMA, HostBuffer(kRingBytes, gpus_[1], /*exec=*/true));
    ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
    HsaEvent* event = NewEvent(HSA_EVENTTYPE_SIGNAL, gpus_[1]);
    queue.PlaceStruct(sdma::MakeFill(reinterpret_cast<uint64_t>(p), 0x600du, 8192));
    ASSERT_EQ(queue.SignalAndWait(event), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(static_cast<volatile uint32_t*>(p)[2047], 0x600du);
  }
  // A larger list adds a GPU back.
  ASSERT_EQ(hsaKmtMapMemoryToGPUNodes(p, 8192, nullptr, map_flags, 2, both), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(mapped(), (std::vector<HSAuint32>{std::min(gpus_[0], gpus_[1]), std::max(gpus_[0], gpus_[1])}));
  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(p), HSAKMT_STATUS_SUCCESS);
  EXPECT_TRUE(mapped().empty());
}

TEST_F(KfdtestCApiTest, OnlyAddressAndNoAddressCannotBeMapped) {
  const HSAuint32 node = gpus_[0];
  HsaMemFlags only{};
  only.ui32.OnlyAddress = 1;
  only.ui32.HostAccess = 1;
  void* reserved = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(0, 1 << 20, only, &reserved), HSAKMT_STATUS_SUCCESS);
  ASSERT_NE(reserved, nullptr);
  EXPECT_EQ(hsaKmtMapMemoryToGPU(reserved, 1 << 20, nullptr), HSAKMT_STATUS_INVALID_PARAMETER)
      << "a reservation has no memory to map";
  EXPECT_EQ(hsaKmtFreeMemory(reserved, 1 << 20), HSAKMT_STATUS_SUCCESS);

  HsaMemFlags none{};
  none.ui32.NoAddress = 1;
  none.ui32.NonPaged = 1;
  void* handle = nullptr;
  ASSERT_EQ(hsaKmtAllocMemory(node, 1 << 20, none, &handle), HSAKMT_STATUS_SUCCESS);
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(hsaKmtMapMemoryToGPU(handle, 1 << 20, nullptr), HSAKMT_STATUS_INVALID_PARAMETER)
      << "a buffer without an address cannot be mapped";
  EXPECT_EQ(hsaKmtFreeMemory(handle, 1 << 20), HSAKMT_STATUS_SUCCESS);

  HsaMemFlags both = only;  // on the device path (a GPU node, NonPaged) the two exclude each other
  both.ui32.NoAddress = 1;
  both.ui32.NonPaged = 1;
  void* neither = nullptr;
  EXPECT_EQ(hsaKmtAllocMemory(node, 4096, both, &neither), HSAKMT_STATUS_INVALID_PARAMETER);
}

TEST_F(KfdtestCApiTest, ClockCountersAreMonotonicAndBracketAnSdmaTimestamp) {
  for (HSAuint32 node : gpus_) {
    SCOPED_TRACE(testing::Message() << "node " << node);
    HsaClockCounters before{};
    ASSERT_EQ(hsaKmtGetClockCounters(node, &before), HSAKMT_STATUS_SUCCESS);
    EXPECT_GT(before.SystemClockFrequencyHz, 0u);

    Ring queue(node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
    ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
    auto* stamp = static_cast<volatile uint64_t*>(HostBuffer(4096, node));
    HsaEvent* event = NewEvent(HSA_EVENTTYPE_SIGNAL, node);
    queue.PlaceStruct(sdma::MakeTimestamp(reinterpret_cast<uint64_t>(stamp)));
    ASSERT_EQ(queue.SignalAndWait(event), HSAKMT_STATUS_SUCCESS);

    HsaClockCounters after{};
    ASSERT_EQ(hsaKmtGetClockCounters(node, &after), HSAKMT_STATUS_SUCCESS);
    EXPECT_GE(after.GPUClockCounter, before.GPUClockCounter);
    EXPECT_GT(after.CPUClockCounter, before.CPUClockCounter);
    EXPECT_GT(after.SystemClockCounter, before.SystemClockCounter);
    EXPECT_GE(*stamp, before.GPUClockCounter) << "the GPU's timestamp is on the clock the counters read";
    EXPECT_LE(*stamp, after.GPUClockCounter);
  }
}

}  // namespace
