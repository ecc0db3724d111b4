// kfdtest's scaffolding over the hsaKmt C API only (hsakmt.h, kfd_ioctl.h and the gpu_abi packet builders), for
// the kfdtest_*_conformance tests, which run on the default machine or on the one HIPMEM_SIM_PRESET names. Queues
// are created, filled and rung as kfdtest's BaseQueue/PM4Queue/SDMAQueue do: the ring is host memory mapped to the
// GPU, the write pointer is stored to *Queue_write_ptr and then, by a plain store, to the doorbell (PM4 in dwords,
// SDMA in bytes); completion is a RELEASE_MEM (PM4) or FENCE + TRAP (SDMA) of the event id into the event's slot,
// waited for with hsaKmtWaitOnEvent. Behaviour follows kfdtest's KFDBaseComponentTest and HsaMemoryBuffer; the
// code is ours.
#ifndef HIPMEM_THUNK_KFDTEST_C_API_FIXTURE_H_
#define HIPMEM_THUNK_KFDTEST_C_API_FIXTURE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <span>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "gpu_abi/pm4_packets.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"

namespace hipmem_testing {

namespace pm4 = ::hipmem::gpu_abi::pm4;
namespace sdma = ::hipmem::gpu_abi::sdma;

inline constexpr HSAuint64 kRingBytes = 4096;
inline constexpr HSAuint32 kTimeoutMs = 1000;  // generous for the simulator; bounds a broken one
inline constexpr HSAuint64 kPageBytes = 4096;
// How many times longer a wait that kfdtest bounds by wall time may take under a sanitizer, whose instrumented
// engines run several times slower (on a machine that is busy besides).
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
inline constexpr int kSanitizerSlowdown = 6;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

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

// kfdtest's KFDBaseComponentTest: an open KFD with its system properties acquired, the GPU nodes in node order
// (the first is kfdtest's default GPU node) and their properties. Frees what it hands out.
class KfdtestCApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
    HsaSystemProperties sys{};
    ASSERT_EQ(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
    num_nodes_ = sys.NumNodes;
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

  // The node's memory banks (hsaKmtGetNodeMemoryProperties).
  std::vector<HsaMemoryProperties> MemoryBanks(HSAuint32 node) const {
    HsaNodeProperties props{};
    EXPECT_EQ(hsaKmtGetNodeProperties(node, &props), HSAKMT_STATUS_SUCCESS);
    std::vector<HsaMemoryProperties> banks(props.NumMemoryBanks);
    EXPECT_EQ(hsaKmtGetNodeMemoryProperties(node, props.NumMemoryBanks, banks.data()), HSAKMT_STATUS_SUCCESS);
    return banks;
  }

  // kfdtest's HsaNodeInfo::IsGPUNodeLargeBar: the GPU has a host-visible frame buffer bank.
  bool IsLargeBar(HSAuint32 node) const {
    for (const HsaMemoryProperties& bank : MemoryBanks(node)) {
      if (bank.HeapType == HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC && bank.SizeInBytes > 0) return true;
    }
    return false;
  }

  // kfdtest's HsaNodeInfo::IsPeerAccessibleByNode(peer, node): an io link leads from `node` to `peer`.
  bool IsPeerAccessibleByNode(HSAuint32 peer, HSAuint32 node) const {
    HsaNodeProperties props{};
    EXPECT_EQ(hsaKmtGetNodeProperties(node, &props), HSAKMT_STATUS_SUCCESS);
    std::vector<HsaIoLinkProperties> links(props.NumIOLinks);
    EXPECT_EQ(hsaKmtGetNodeIoLinkProperties(node, props.NumIOLinks, links.data()), HSAKMT_STATUS_SUCCESS);
    for (const HsaIoLinkProperties& link : links) {
      if (link.NodeTo == peer) return true;
    }
    return false;
  }

  HSAuint32 num_nodes_ = 0;
  std::vector<HSAuint32> gpus_;
  std::vector<HsaNodeProperties> props_;
  std::vector<void*> buffers_;
  std::vector<HsaEvent*> events_;
};

// One queue as kfdtest's BaseQueue keeps it: the ring, the pending write pointer in dwords (64-bit, never
// wrapped), and the resource hsaKmtCreateQueue filled. Destroys the queue, if live, when it goes.
class Ring {
 public:
  Ring(HSAuint32 node, HSA_QUEUE_TYPE type, void* buffer) : type_(type) {
    ring_ = static_cast<uint32_t*>(buffer);
    status_ = hsaKmtCreateQueue(node, type, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRingBytes, nullptr, &res_);
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
    const uint64_t value = type_ == HSA_QUEUE_COMPUTE ? wptr_ : wptr_ * sizeof(uint32_t);
    std::atomic_ref<HSAuint64>(*res_.Queue_write_ptr_aql).store(value, std::memory_order_release);
    std::atomic_ref<HSAuint64>(*reinterpret_cast<HSAuint64*>(res_.Queue_DoorBell)).store(value,
                                                                                        std::memory_order_release);
  }

  // kfdtest's Rptr(): PM4 reads a 32-bit dword pointer wrapped at the ring; SDMA a byte pointer.
  uint32_t RptrDwords() const {
    if (type_ == HSA_QUEUE_COMPUTE) return std::atomic_ref<HSAuint32>(*res_.Queue_read_ptr).load();
    return static_cast<uint32_t>((std::atomic_ref<HSAuint64>(*res_.Queue_read_ptr_aql).load() % kRingBytes) / 4);
  }
  uint32_t WptrDwords() const { return static_cast<uint32_t>(wptr_ % kRingDwords); }
  // BaseQueue::AllPacketsSubmitted.
  bool Consumed() const { return RptrDwords() == WptrDwords(); }
  // Wait4PacketConsumption() without an event: polls the read pointer.
  bool WaitConsumed(std::chrono::milliseconds limit = std::chrono::milliseconds(kTimeoutMs)) const {
    return WaitUntil([&] { return Consumed(); }, limit);
  }

  // Wait4PacketConsumption() and then Wait4PacketConsumption(event): the read pointer reaches the write pointer,
  // then the signal packet(s) run and the event is waited for. SUCCESS when both happen. kfdtest reads what the
  // packets wrote after the first alone; the event is what orders that read after the engine's writes for
  // ThreadSanitizer (the engine publishes the read pointer through its own mapping of the page, not ours).
  HSAKMT_STATUS Settle(HsaEvent* event) {
    if (!WaitConsumed()) return HSAKMT_STATUS_WAIT_TIMEOUT;
    return SignalAndWait(event);
  }

  // Wait4PacketConsumption(event): the signal packet(s), submitted, then the wait (of up to `timeout_ms`).
  HSAKMT_STATUS SignalAndWait(HsaEvent* event, HSAuint32 timeout_ms = kTimeoutMs) {
    if (type_ == HSA_QUEUE_COMPUTE) {
      Place(pm4::MakeSignalEvent(event->EventData.HWData2, event->EventId));
    } else {
      PlaceStruct(sdma::MakeFence(event->EventData.HWData2, event->EventId));
      PlaceStruct(sdma::MakeTrap(event->EventId));
    }
    Submit();
    return hsaKmtWaitOnEvent(event, timeout_ms);
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

}  // namespace hipmem_testing

#endif  // HIPMEM_THUNK_KFDTEST_C_API_FIXTURE_H_
