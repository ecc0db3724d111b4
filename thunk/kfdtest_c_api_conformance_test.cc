// kfdtest-style conformance through the C API only (hsakmt.h, kfd_ioctl.h and the gpu_abi packet builders), on
// the default machine or on the one HIPMEM_SIM_PRESET names. Queues are created, filled and rung as kfdtest's
// BaseQueue/PM4Queue/SDMAQueue do: the ring is host memory mapped to the GPU, the write pointer is stored to
// *Queue_write_ptr and then, by a plain store, to the doorbell (PM4 in dwords, SDMA in bytes); completion is
// a RELEASE_MEM (PM4) or FENCE + TRAP (SDMA) of the event id into the event's slot, waited for with
// hsaKmtWaitOnEvent. Behaviour follows KFDQMTest, KFDEventTest and KFDMemoryTest; the code is ours.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <span>
#include <thread>
#include <vector>

#include "gpu_abi/pm4_packets.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "hsakmt/linux/kfd_ioctl.h"

namespace {

namespace pm4 = ::hipmem::gpu_abi::pm4;
namespace sdma = ::hipmem::gpu_abi::sdma;

constexpr HSAuint64 kRingBytes = 4096;
constexpr HSAuint32 kTimeoutMs = 1000;  // generous for the simulator; bounds a broken one

// Spins (with sleeps) until `done` or `limit`; returns done().
template <typename F>
bool WaitUntil(F done, std::chrono::milliseconds limit = std::chrono::milliseconds(kTimeoutMs)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

class KfdtestCApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys{};
    ASSERT_EQ(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
    for (HSAuint32 n = 0; n < sys.NumNodes; ++n) {
      HsaNodeProperties props{};
      ASSERT_EQ(hsaKmtGetNodeProperties(n, &props), HSAKMT_STATUS_SUCCESS);
      if (props.KFDGpuID != 0) {
        gpus_.push_back(n);
        props_.push_back(props);
      }
    }
    ASSERT_FALSE(gpus_.empty());
  }

  void TearDown() override {
    for (HsaEvent* e : events_) EXPECT_EQ(hsaKmtDestroyEvent(e), HSAKMT_STATUS_SUCCESS);
    for (void* p : buffers_) EXPECT_EQ(hsaKmtFreeMemory(p, 0), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(hsaKmtReleaseSystemProperties(), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  }

  // kfdtest's HsaMemoryBuffer(size, node, zero, isLocal = false, isExec, ..., isUncached): system memory
  // mapped to `node`'s GPU.
  void* HostBuffer(HSAuint64 size, HSAuint32 node, bool exec = false) {
    HsaMemFlags flags{};
    flags.ui32.PageSize = HSA_PAGE_SIZE_4KB;
    flags.ui32.HostAccess = 1;
    flags.ui32.NoNUMABind = 1;
    flags.ui32.ExecuteAccess = exec ? 1 : 0;
    flags.ui32.Uncached = exec ? 1 : 0;
    void* p = nullptr;
    EXPECT_EQ(hsaKmtAllocMemory(0, size, flags, &p), HSAKMT_STATUS_SUCCESS);
    if (p == nullptr) return nullptr;
    std::memset(p, 0, size);
    HsaMemMapFlags map_flags{};
    EXPECT_EQ(hsaKmtMapMemoryToGPUNodes(p, size, nullptr, map_flags, 1, &node), HSAKMT_STATUS_SUCCESS);
    buffers_.push_back(p);
    return p;
  }

  HsaEvent* NewEvent(HSA_EVENTTYPE type, HSAuint32 node, bool manual_reset = true) {
    HsaEventDescriptor desc{};
    desc.EventType = type;
    desc.NodeId = node;
    HsaEvent* event = nullptr;
    EXPECT_EQ(hsaKmtCreateEvent(&desc, manual_reset, false, &event), HSAKMT_STATUS_SUCCESS);
    if (event != nullptr) events_.push_back(event);
    return event;
  }

  std::vector<HSAuint32> gpus_;
  std::vector<HsaNodeProperties> props_;
  std::vector<void*> buffers_;
  std::vector<HsaEvent*> events_;
};

// One queue as kfdtest's BaseQueue keeps it: the ring, the pending write pointer in dwords (64-bit, never
// wrapped), and the resource hsaKmtCreateQueue filled.
class Ring {
 public:
  Ring(KfdtestCApiTest* test, HSAuint32 node, HSA_QUEUE_TYPE type, void* buffer) : type_(type) {
    ring_ = static_cast<uint32_t*>(buffer);
    status_ = hsaKmtCreateQueue(node, type, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr, &res_);
    (void)test;
  }
  ~Ring() {
    if (live()) {
      EXPECT_EQ(Destroy(), HSAKMT_STATUS_SUCCESS);
    }
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  HSAKMT_STATUS status() const { return status_; }
  bool live() const { return status_ == HSAKMT_STATUS_SUCCESS && !destroyed_; }
  const HsaQueueResource& resource() const { return res_; }
  HSAKMT_STATUS Destroy() {
    destroyed_ = true;
    return hsaKmtDestroyQueue(res_.QueueId);
  }

  // BaseQueue::PlacePacket without wrap-around: every test stays well inside one ring.
  void Place(std::span<const uint32_t> dwords) {
    ASSERT_LE((wptr_ % kRingDwords) + dwords.size(), kRingDwords) << "test ring too small";
    std::memcpy(ring_ + wptr_ % kRingDwords, dwords.data(), dwords.size_bytes());
    wptr_ += dwords.size();
  }
  template <typename Packet>
  void PlaceStruct(const Packet& packet) {
    static_assert(sizeof(Packet) % 4 == 0);
    Place(std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(&packet), sizeof(Packet) / 4));
  }

  // PM4Queue/SDMAQueue::SubmitPacket for gfx9+: the 64-bit write pointer to memory, then to the doorbell, each
  // one plain store, no call into the thunk or simulator. A release store is the `mov` kfdtest's barrier +
  // volatile store compiles to on x86, keeps the packet's memcpy above it, and is one ThreadSanitizer follows.
  void Submit() {
    const uint64_t value = PendingWptr();
    std::atomic_ref<HSAuint64>(*res_.Queue_write_ptr_aql).store(value, std::memory_order_release);
    std::atomic_ref<HSAuint64>(*reinterpret_cast<HSAuint64*>(res_.Queue_DoorBell)).store(value,
                                                                                        std::memory_order_release);
  }

  // GetPendingWptr64: the write pointer Submit would store (PM4 in dwords, SDMA in bytes).
  uint64_t PendingWptr() const { return type_ == HSA_QUEUE_COMPUTE ? wptr_ : wptr_ * sizeof(uint32_t); }

  // kfdtest's Rptr(): PM4 reads a 32-bit dword pointer wrapped at the ring; SDMA a byte pointer.
  uint32_t RptrDwords() const {
    if (type_ == HSA_QUEUE_COMPUTE) return std::atomic_ref<HSAuint32>(*res_.Queue_read_ptr).load();
    return static_cast<uint32_t>((std::atomic_ref<HSAuint64>(*res_.Queue_read_ptr_aql).load() % kRingBytes) / 4);
  }
  uint32_t WptrDwords() const { return static_cast<uint32_t>(wptr_ % kRingDwords); }
  bool Consumed() const { return RptrDwords() == WptrDwords(); }

  // Wait4PacketConsumption(event): the signal packet(s), submitted, then the wait.
  HSAKMT_STATUS SignalAndWait(HsaEvent* event) {
    if (type_ == HSA_QUEUE_COMPUTE) {
      Place(pm4::MakeSignalEvent(event->EventData.HWData2, event->EventId));
    } else {
      PlaceStruct(sdma::MakeFence(event->EventData.HWData2, event->EventId));
      PlaceStruct(sdma::MakeTrap(event->EventId));
    }
    Submit();
    return hsaKmtWaitOnEvent(event, kTimeoutMs);
  }

 private:
  static constexpr uint32_t kRingDwords = kRingBytes / 4;
  HSA_QUEUE_TYPE type_;
  uint32_t* ring_ = nullptr;
  HsaQueueResource res_{};
  HSAKMT_STATUS status_ = HSAKMT_STATUS_ERROR;
  bool destroyed_ = false;
  uint64_t wptr_ = 0;
};

// ---- KFDQMTest: PM4 compute queues (CreateCpQueue, SubmitNopCpQueue, CpQueueWraparound's consumption) ----

TEST_F(KfdtestCApiTest, Pm4QueueWriteDataAndReleaseMemWakeTheEvent) {
  for (HSAuint32 node : gpus_) {
    SCOPED_TRACE(testing::Message() << "node " << node);
    Ring queue(this, node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
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
  Ring queue(this, node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
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

TEST_F(KfdtestCApiTest, Pm4DispatchHaltsTheQueueAndSetsAHwExceptionEvent) {
  const HSAuint32 node = gpus_[0];
  HsaEvent* hw = NewEvent(HSA_EVENTTYPE_HW_EXCEPTION, node);
  ASSERT_NE(hw, nullptr);
  auto* dst = static_cast<volatile uint32_t*>(HostBuffer(4096, node));
  Ring queue(this, node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Place(pm4::MakeDispatchDirect(1, 1, 1));
  queue.Place(pm4::MakeWriteData(reinterpret_cast<uint64_t>(dst), {1u}));
  queue.Submit();
  ASSERT_EQ(hsaKmtWaitOnEvent(hw, kTimeoutMs), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hw->EventData.EventData.HwException.ResetCause, HSA_EVENTID_HW_EXCEPTION_GPU_HANG);
  EXPECT_EQ(dst[0], 0u) << "nothing after the dispatch runs";
  EXPECT_EQ(queue.RptrDwords(), 0u) << "the read pointer stops at the dispatch";
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS) << "a halted queue is destroyed without hanging";
}

// KFDQMTest.GPUDoorbellWrite (gfx9+, DOORBELL_WRITE_USE_SDMA): a PM4 packet is placed but not submitted; an SDMA
// queue writes the pending 64-bit write pointer (two dwords) to the PM4 queue's Queue_write_ptr and Queue_DoorBell.
// Both are CPU addresses the GPU reaches too: libhsakmt maps the doorbell slice for the GPU at its CPU address.
TEST_F(KfdtestCApiTest, GpuDoorbellWriteFromAnSdmaQueueRunsThePm4Queue) {
  const HSAuint32 node = gpus_[0];
  auto* dst = static_cast<uint32_t*>(HostBuffer(4096, node));
  Ring pm4_queue(this, node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
  Ring other(this, node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
  ASSERT_EQ(pm4_queue.status(), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(other.status(), HSAKMT_STATUS_SUCCESS);

  pm4_queue.Place(pm4::MakeWriteData(reinterpret_cast<uint64_t>(dst), {0x12345678u, 0x87654321u}));
  const uint64_t pending = pm4_queue.PendingWptr();
  const std::array<uint32_t, 2> pending_dwords = {static_cast<uint32_t>(pending), static_cast<uint32_t>(pending >> 32)};
  other.PlaceStruct(sdma::MakeWrite<2>(reinterpret_cast<uint64_t>(pm4_queue.resource().Queue_write_ptr_aql),
                                       pending_dwords));
  other.PlaceStruct(sdma::MakeWrite<2>(reinterpret_cast<uint64_t>(pm4_queue.resource().Queue_DoorBell),
                                       pending_dwords));
  other.Submit();

  EXPECT_TRUE(WaitUntil([&] { return std::atomic_ref<uint32_t>(dst[0]).load() == 0x12345678u; }));
  EXPECT_TRUE(WaitUntil([&] { return std::atomic_ref<uint32_t>(dst[1]).load() == 0x87654321u; }));
  EXPECT_TRUE(WaitUntil([&] { return pm4_queue.Consumed(); }));
}

// ---- KFDQMTest: SDMA queues (CreateSdmaQueue, SdmaConcurrentCopies' copy, SdmaFill) on every GPU ----

TEST_F(KfdtestCApiTest, SdmaQueueCopiesAndTheFenceAndTrapWakeTheEventOnEveryGpu) {
  constexpr HSAuint32 kBytes = 64 * 1024;
  for (HSAuint32 node : gpus_) {
    SCOPED_TRACE(testing::Message() << "node " << node);
    Ring queue(this, node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
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
    Ring queue(this, node, HSA_QUEUE_SDMA_XGMI, HostBuffer(kRingBytes, node, /*exec=*/true));
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
  Ring queue(this, node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
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
  Ring queue(this, node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
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
    Ring queue(this, gpus_[1], HSA_QUEUE_SDMA, HostBuffer(kRingBytes, gpus_[1], /*exec=*/true));
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

    Ring queue(this, node, HSA_QUEUE_SDMA, HostBuffer(kRingBytes, node, /*exec=*/true));
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
