#include "testing/kfd_sim/engines/compute_engine.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/blit_kernels.h"
#include "testing/kfd_sim/engines/test_memory.h"

namespace hipmem::kfd_sim {
namespace blit = ::hipmem::gpu_abi::blit;
namespace {

using blit::KernelId;

uint64_t Va(const void* p) { return reinterpret_cast<uint64_t>(p); }

struct alignas(64) Slot {
  unsigned char bytes[aql::kPacketBytes];
};

int64_t LoadValue(const aql::AmdSignal& signal) {
  return std::atomic_ref<int64_t>(const_cast<int64_t&>(signal.value)).load(std::memory_order_acquire);
}
void StoreValue(aql::AmdSignal& signal, int64_t value) {
  std::atomic_ref<int64_t>(signal.value).store(value, std::memory_order_release);
}

// Waits (bounded, so a broken engine fails the test instead of hanging it) until the signal reads `value`.
bool WaitForValue(const aql::AmdSignal& signal, int64_t value) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (LoadValue(signal) != value) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

// The identity page table, also checking the access-scope discipline: every Translate happens inside a
// scope, and an UNMAP-like waiter can see when no scope is open.
class ScopeCheckingPageTable final : public GpuMemory {
 public:
  void Map(const void* host, uint64_t bytes) { inner_.Map(host, bytes); }
  void Unmap(const void* host) { inner_.Unmap(host); }
  std::optional<Span> Translate(uint64_t va, uint64_t bytes) override {
    if (open_.load() == 0) unscoped_.fetch_add(1);
    return inner_.Translate(va, bytes);
  }
  int open_scopes() const { return open_.load(); }
  int unscoped_translations() const { return unscoped_.load(); }

 protected:
  void BeginAccess() override { open_.fetch_add(1); }
  void EndAccess() override { open_.fetch_sub(1); }

 private:
  IdentityPageTable inner_;
  std::atomic<int> open_{0};
  std::atomic<int> unscoped_{0};
};

// What the engine reported through its callbacks (they run on the CP thread), and whether any callback ran
// with an access scope open (a handler that unmaps would deadlock).
class Reports {
 public:
  explicit Reports(const ScopeCheckingPageTable* memory = nullptr) : memory_(memory) {}
  ComputeEngine::Callbacks Callbacks() {
    return ComputeEngine::Callbacks{
        [this](uint32_t id) { Add(interrupts_, id); },
        [this](uint64_t va) { Add(faults_, va); },
        [this](QueueError e) { Add(errors_, e); },
    };
  }
  std::vector<uint32_t> interrupts() const { return Get(interrupts_); }
  std::vector<uint64_t> faults() const { return Get(faults_); }
  std::vector<QueueError> errors() const { return Get(errors_); }
  int callbacks_in_scope() const {
    std::lock_guard<std::mutex> lock(mu_);
    return in_scope_;
  }

 private:
  template <typename T>
  void Add(std::vector<T>& v, T x) {
    std::lock_guard<std::mutex> lock(mu_);
    v.push_back(x);
    if (memory_ != nullptr && memory_->open_scopes() != 0) ++in_scope_;
  }
  template <typename T>
  std::vector<T> Get(const std::vector<T>& v) const {
    std::lock_guard<std::mutex> lock(mu_);
    return v;
  }
  const ScopeCheckingPageTable* const memory_;
  mutable std::mutex mu_;
  int in_scope_ = 0;
  std::vector<uint32_t> interrupts_;
  std::vector<uint64_t> faults_;
  std::vector<QueueError> errors_;
};

// A queue as ROCr lays one out: a ring filled with INVALID headers, read and write indices, all GPU-mapped,
// plus the three built-in kernel descriptors in GPU memory.
class ComputeQueueTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kSlots = 8;

  void SetUp() override {
    ring_.resize(kSlots);
    for (Slot& s : ring_) aql::InvalidateSlot(&s);
    memory_.Map(ring_.data(), kSlots * aql::kPacketBytes);
    memory_.Map(&read_index_, sizeof(read_index_));
    memory_.Map(&write_index_, sizeof(write_index_));
    for (KernelId id : {KernelId::kCopy, KernelId::kFill, KernelId::kFillBytes}) {
      descriptors_.push_back(std::make_unique<blit::KernelDescriptor>(blit::MakeDescriptor(id)));
      memory_.Map(descriptors_.back().get(), sizeof(blit::KernelDescriptor));
    }
    engine_ = std::make_unique<ComputeEngine>("cp0", &memory_,
                                              AqlQueueDescriptor{.ring_va = Va(ring_.data()),
                                                                 .ring_bytes = kSlots * aql::kPacketBytes,
                                                                 .read_dispatch_id_va = Va(&read_index_),
                                                                 .write_dispatch_id_va = Va(&write_index_)},
                                              4, reports_.Callbacks());
  }

  void TearDown() override {
    engine_.reset();
    EXPECT_EQ(memory_.unscoped_translations(), 0) << "every GPU access happens inside an AccessScope";
    EXPECT_EQ(memory_.open_scopes(), 0);
    EXPECT_EQ(reports_.callbacks_in_scope(), 0);
  }

  uint64_t Descriptor(KernelId id) const { return Va(descriptors_[static_cast<int>(id) - 1].get()); }

  // Keeps a kernarg block alive and mapped for the rest of the test; returns its VA.
  template <typename Args>
  uint64_t Kernargs(const Args& args) {
    auto& block = kernargs_.emplace_back();
    std::memcpy(block.bytes, &args, sizeof(args));
    memory_.Map(block.bytes, sizeof(block.bytes));
    return Va(block.bytes);
  }

  aql::KernelDispatchPacket Copy(const void* dst, const void* src, uint64_t bytes, uint64_t signal = 0,
                                 uint32_t grid = 0, uint16_t workgroup = blit::kWorkgroupSize) {
    return blit::MakeDispatch(Descriptor(KernelId::kCopy), Kernargs(blit::MakeCopyArgs(Va(dst), Va(src), bytes)), bytes,
                              signal, grid, workgroup);
  }
  aql::KernelDispatchPacket Fill(const void* dst, uint32_t pattern, uint64_t bytes, uint64_t signal = 0,
                                 uint32_t grid = 0, uint16_t workgroup = blit::kWorkgroupSize) {
    return blit::MakeDispatch(Descriptor(KernelId::kFill), Kernargs(blit::MakeFillArgs(Va(dst), pattern, bytes)), bytes,
                              signal, grid, workgroup);
  }
  aql::KernelDispatchPacket FillBytes(const void* dst, uint8_t value, uint64_t bytes, uint64_t signal = 0) {
    return blit::MakeDispatch(Descriptor(KernelId::kFillBytes),
                              Kernargs(blit::MakeFillBytesArgs(Va(dst), value, bytes)), bytes, signal);
  }

  // A completion/dependency signal in GPU-mapped memory, optionally with an event mailbox.
  aql::AmdSignal* NewSignal(int64_t value, uint64_t* mailbox = nullptr, uint32_t event_id = 0) {
    auto& s = signals_.emplace_back();
    s.kind = static_cast<int64_t>(aql::SignalKind::kUser);
    s.value = value;
    s.event_mailbox_ptr = Va(mailbox);
    s.event_id = event_id;
    memory_.Map(&s, sizeof(s));
    return &s;
  }

  // Publishes a packet at the write index and rings the doorbell with its index, waiting first (like any AQL
  // producer) until the read index leaves a free slot.
  template <typename Packet>
  void Submit(const Packet& packet) {
    while (write_index_ - std::atomic_ref<uint64_t>(read_index_).load(std::memory_order_acquire) >= kSlots) {
      std::this_thread::yield();
    }
    aql::WritePacket(&ring_[write_index_ % kSlots], packet);
    engine_->RingDoorbell(write_index_);
    ++write_index_;
  }

  ScopeCheckingPageTable memory_;
  std::vector<Slot> ring_;
  uint64_t read_index_ = 0;
  uint64_t write_index_ = 0;
  std::vector<std::unique_ptr<blit::KernelDescriptor>> descriptors_;
  std::deque<Slot> kernargs_;
  std::deque<aql::AmdSignal> signals_;
  Reports reports_{&memory_};
  // A doorbell word the test stores to like a raw client (the fixture's engine keeps its private one).
  uint64_t client_doorbell_ = ComputeEngine::IdleDoorbellValue(0);
  std::unique_ptr<ComputeEngine> engine_;
};

TEST_F(ComputeQueueTest, CopyLandsExactlyForUnalignedOffsetsSizesAndManyWorkgroups) {
  struct Row {
    size_t src_offset, dst_offset, bytes;
    uint32_t grid;       // 0: the builder's choice
    uint16_t workgroup;  // work-items per workgroup
  };
  constexpr Row kRows[] = {
      {0, 0, 1, 0, 256},         {1, 3, 7, 0, 256},       {5, 2, 1000, 0, 256},
      {3, 1, 65537, 0, 256},     {7, 0, 300001, 1000, 1},  // 1000 workgroups of one work-item
      {13, 6, 262147, 4096, 64},                           // 64 workgroups, shares that do not divide the size
      {0, 0, 1 << 20, 0, 256},                             // the builder's geometry: 4 workgroups of 256 KiB
      {9, 4, 4099, 4099, 3},                               // one byte per work-item, a last workgroup of one item
  };
  constexpr size_t kGuard = 64;
  for (const Row& row : kRows) {
    SCOPED_TRACE(testing::Message() << "src+" << row.src_offset << " dst+" << row.dst_offset << " bytes " << row.bytes
                                    << " grid " << row.grid << " workgroup " << row.workgroup);
    std::vector<uint8_t> src(row.bytes + 2 * kGuard), dst(row.bytes + 2 * kGuard, 0xEE);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
    memory_.Map(src.data(), src.size());
    memory_.Map(dst.data(), dst.size());
    aql::AmdSignal* done = NewSignal(1);
    Submit(Copy(dst.data() + kGuard + row.dst_offset, src.data() + kGuard + row.src_offset, row.bytes, Va(done),
                row.grid, row.workgroup));
    ASSERT_TRUE(engine_->WaitIdle());
    EXPECT_EQ(LoadValue(*done), 0);
    for (size_t i = 0; i < dst.size(); ++i) {
      const size_t begin = kGuard + row.dst_offset;
      const uint8_t want = (i >= begin && i < begin + row.bytes) ? src[i - begin + kGuard + row.src_offset] : 0xEE;
      ASSERT_EQ(dst[i], want) << "byte " << i;
    }
    memory_.Unmap(src.data());
    memory_.Unmap(dst.data());
  }
  EXPECT_TRUE(reports_.faults().empty());
  EXPECT_TRUE(reports_.errors().empty());
}

TEST_F(ComputeQueueTest, DwordFillWritesThePatternOnlyInsideTheRange) {
  std::vector<uint32_t> dst(2048, 0x11111111);
  memory_.Map(dst.data(), dst.size() * 4);
  // 37 work-items in workgroups of 5: shares that do not divide the range evenly.
  Submit(Fill(dst.data() + 3, 0xA1B2C3D4, 4 * 2000, 0, 37, 5));
  ASSERT_TRUE(engine_->WaitIdle());
  for (size_t i = 0; i < dst.size(); ++i) {
    ASSERT_EQ(dst[i], (i >= 3 && i < 2003) ? 0xA1B2C3D4u : 0x11111111u) << i;
  }
  EXPECT_EQ(engine_->bytes_moved(), 8000u);
}

TEST_F(ComputeQueueTest, ByteFillHandlesAnyAlignment) {
  std::vector<uint8_t> dst(5000, 0);
  memory_.Map(dst.data(), dst.size());
  Submit(FillBytes(dst.data() + 3, 0x5A, 4093));
  ASSERT_TRUE(engine_->WaitIdle());
  for (size_t i = 0; i < dst.size(); ++i) ASSERT_EQ(dst[i], (i >= 3 && i < 4096) ? 0x5A : 0) << i;
}

TEST_F(ComputeQueueTest, BlitsCrossMappingBoundariesThatSplitADword) {
  // Two adjacent mappings meeting at an odd byte: the fill's dwords straddle the seam.
  std::vector<uint32_t> fill(1024, 0);
  auto* bytes = reinterpret_cast<uint8_t*>(fill.data());
  memory_.Map(bytes, 2049);
  memory_.Map(bytes + 2049, 4096 - 2049);
  std::vector<uint8_t> src(4096), dst(4096, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i);
  memory_.Map(src.data(), 1000);
  memory_.Map(src.data() + 1000, 3096);
  memory_.Map(dst.data(), 3001);
  memory_.Map(dst.data() + 3001, 1095);
  Submit(Fill(fill.data(), 0xDEADBEEF, 4096, 0, 1, 1));
  Submit(Copy(dst.data(), src.data(), 4096, 0, 1, 1));
  ASSERT_TRUE(engine_->WaitIdle());
  for (size_t i = 0; i < fill.size(); ++i) ASSERT_EQ(fill[i], 0xDEADBEEFu) << i;
  EXPECT_EQ(dst, src);
}

TEST_F(ComputeQueueTest, CompletionSignalIsDecrementedAndItsMailboxInterrupted) {
  uint64_t mailbox = 0;
  memory_.Map(&mailbox, sizeof(mailbox));
  std::vector<uint8_t> buf(256, 0);
  memory_.Map(buf.data(), buf.size());
  aql::AmdSignal* with_event = NewSignal(2, &mailbox, 42);
  aql::AmdSignal* without_event = NewSignal(1);
  Submit(FillBytes(buf.data(), 1, 128, Va(with_event)));
  Submit(FillBytes(buf.data() + 128, 2, 128, Va(without_event)));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(LoadValue(*with_event), 1) << "decremented by one, not set";
  EXPECT_EQ(LoadValue(*without_event), 0);
  EXPECT_EQ(std::atomic_ref<uint64_t>(mailbox).load(), 42u);
  EXPECT_EQ(reports_.interrupts(), std::vector<uint32_t>{42}) << "no interrupt for a signal without mailbox";
}

TEST_F(ComputeQueueTest, BarrierAndWaitsForEveryDependency) {
  aql::AmdSignal* a = NewSignal(1);
  aql::AmdSignal* b = NewSignal(1);
  aql::AmdSignal* barrier_done = NewSignal(1);
  aql::AmdSignal* after = NewSignal(1);
  std::vector<uint8_t> buf(64, 0);
  memory_.Map(buf.data(), buf.size());
  Submit(aql::MakeBarrierAnd({Va(a), 0, Va(b), 0, 0}, Va(barrier_done)));
  Submit(FillBytes(buf.data(), 7, 64, Va(after)));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(LoadValue(*after), 1) << "the dispatch must wait behind the barrier";
  StoreValue(*a, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(LoadValue(*barrier_done), 1) << "one of two dependencies is not enough for AND";
  EXPECT_EQ(LoadValue(*after), 1);
  StoreValue(*b, 0);
  ASSERT_TRUE(WaitForValue(*after, 0));
  EXPECT_EQ(LoadValue(*barrier_done), 0);
  EXPECT_EQ(buf[63], 7);
}

TEST_F(ComputeQueueTest, WaitingBarrierHoldsNoAccessScope) {
  aql::AmdSignal* dep = NewSignal(1);
  aql::AmdSignal* done = NewSignal(1);
  Submit(aql::MakeBarrierAnd({Va(dep), 0, 0, 0, 0}, Va(done)));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // What the simulator's UNMAP does: wait for the open scopes to drain. A CP that kept its scope across
  // the barrier's sleeps would never let it through.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (memory_.open_scopes() != 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_EQ(memory_.open_scopes(), 0);
  EXPECT_EQ(LoadValue(*done), 1);
  StoreValue(*dep, 0);
  ASSERT_TRUE(WaitForValue(*done, 0));
}

TEST_F(ComputeQueueTest, BarrierAndWithOnlyEmptySlotsPassesAtOnce) {
  aql::AmdSignal* done = NewSignal(1);
  Submit(aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(done)));
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(LoadValue(*done), 0);
}

TEST_F(ComputeQueueTest, BarrierOrProceedsOnAnyDependencyButNotOnEmptySlots) {
  aql::AmdSignal* a = NewSignal(1);
  aql::AmdSignal* b = NewSignal(1);
  aql::AmdSignal* after = NewSignal(1);
  Submit(aql::MakeBarrierOr({0, Va(a), 0, Va(b), 0}));
  Submit(aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(after)));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(LoadValue(*after), 1) << "a zero handle is not a satisfied dependency for OR";
  StoreValue(*b, 0);
  ASSERT_TRUE(WaitForValue(*after, 0));
  EXPECT_EQ(LoadValue(*a), 1);
}

TEST_F(ComputeQueueTest, UnmappedSourceHaltsAtTheFirstMissingByteAndNothingAfterRuns) {
  std::vector<uint8_t> src(1 << 20, 9), dst(1 << 20, 0);
  constexpr size_t kMapped = 300000;  // not a workgroup boundary
  memory_.Map(src.data(), kMapped);
  memory_.Map(dst.data(), dst.size());
  aql::AmdSignal* copy_done = NewSignal(1);
  aql::AmdSignal* later = NewSignal(1);
  Submit(Copy(dst.data(), src.data(), src.size(), Va(copy_done), 1 << 12, 16));  // 256 workgroups
  Submit(aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(later)));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_TRUE(engine_->halted());
  EXPECT_EQ(reports_.faults(), std::vector<uint64_t>{Va(src.data()) + kMapped});
  EXPECT_EQ(LoadValue(*copy_done), 1) << "a faulted dispatch does not complete";
  EXPECT_EQ(LoadValue(*later), 1) << "a halted queue runs nothing after the fault";
  EXPECT_EQ(engine_->read_index(), 0u);
  EXPECT_EQ(std::count(dst.begin() + kMapped, dst.end(), 0), static_cast<long>(dst.size() - kMapped))
      << "no byte past the source's mapping was copied";
}

TEST_F(ComputeQueueTest, UnmappedDestinationIsReportedAndNeverWritten) {
  std::vector<uint8_t> src(100000, 1), unmapped(100000, 0);
  memory_.Map(src.data(), src.size());
  Submit(Copy(unmapped.data(), src.data(), src.size(), 0, 100, 1));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_EQ(reports_.faults(), std::vector<uint64_t>{Va(unmapped.data())}) << "workgroup 0's fault is reported";
  EXPECT_EQ(std::count(unmapped.begin(), unmapped.end(), 0), static_cast<long>(unmapped.size()));
}

TEST_F(ComputeQueueTest, UnmappedCompletionSignalIsAVmFault) {
  alignas(64) aql::AmdSignal unmapped{};
  Submit(aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(&unmapped)));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_EQ(reports_.faults(), std::vector<uint64_t>{Va(&unmapped) + aql::kSignalValueOffset});
}

TEST_F(ComputeQueueTest, BadKernelObjectIsAQueueErrorAndNothingAfterRuns) {
  blit::KernelDescriptor bad_magic = blit::MakeDescriptor(KernelId::kCopy);
  bad_magic.magic = 0x12345678;
  memory_.Map(&bad_magic, sizeof(bad_magic));
  aql::AmdSignal* later = NewSignal(1);
  aql::KernelDispatchPacket packet = Copy(nullptr, nullptr, 0);
  packet.kernel_object = Va(&bad_magic);
  Submit(packet);
  Submit(aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(later)));
  EXPECT_FALSE(engine_->WaitIdle());
  EXPECT_EQ(reports_.errors(), std::vector<QueueError>{QueueError::kInvalidKernelObject});
  EXPECT_TRUE(reports_.faults().empty());
  EXPECT_EQ(LoadValue(*later), 1);
}

// One bad packet per fresh queue: each must halt it with its own reason.
TEST(ComputeEngineErrorTest, EachMalformedPacketHaltsWithItsReason) {
  blit::KernelDescriptor unknown_kernel = blit::MakeDescriptor(KernelId::kCopy);
  unknown_kernel.kernel_id = 99;
  blit::KernelDescriptor wrong_version = blit::MakeDescriptor(KernelId::kFill);
  wrong_version.version = 2;
  const blit::KernelDescriptor fill = blit::MakeDescriptor(KernelId::kFill);
  alignas(16) uint32_t target[4] = {};
  const blit::FillArgs misaligned = blit::MakeFillArgs(Va(target) + 2, 1, 8);
  const blit::FillArgs odd_size = blit::MakeFillArgs(Va(target), 1, 6);

  aql::KernelDispatchPacket agent = blit::MakeDispatch(Va(&fill), Va(&odd_size), 8);
  agent.header = aql::Header(aql::PacketType::kAgentDispatch);
  aql::KernelDispatchPacket vendor = agent;
  vendor.header = aql::Header(aql::PacketType::kVendorSpecific);
  aql::KernelDispatchPacket two_d = blit::MakeDispatch(Va(&fill), Va(&misaligned), 8);
  two_d.setup = 2;
  aql::KernelDispatchPacket no_workgroup = blit::MakeDispatch(Va(&fill), Va(&misaligned), 8);
  no_workgroup.workgroup_size_x = 0;

  struct Row {
    const char* name;
    aql::KernelDispatchPacket packet;
    QueueError error;
  };
  const Row rows[] = {
      {"unknown kernel id", blit::MakeDispatch(Va(&unknown_kernel), Va(&odd_size), 8),
       QueueError::kInvalidKernelObject},
      {"wrong version", blit::MakeDispatch(Va(&wrong_version), Va(&odd_size), 8), QueueError::kInvalidKernelObject},
      {"misaligned dword fill", blit::MakeDispatch(Va(&fill), Va(&misaligned), 8), QueueError::kInvalidKernarg},
      {"dword fill of 6 bytes", blit::MakeDispatch(Va(&fill), Va(&odd_size), 6), QueueError::kInvalidKernarg},
      {"agent dispatch", agent, QueueError::kUnsupportedPacket},
      {"vendor specific", vendor, QueueError::kUnsupportedPacket},
      {"2-D grid", two_d, QueueError::kInvalidDispatch},
      {"zero workgroup", no_workgroup, QueueError::kInvalidDispatch},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    IdentityPageTable memory;
    std::vector<Slot> ring(4);
    for (Slot& s : ring) aql::InvalidateSlot(&s);
    uint64_t read_index = 0;
    memory.Map(ring.data(), sizeof(Slot) * ring.size());
    memory.Map(&read_index, 8);
    for (const void* p : {static_cast<const void*>(&unknown_kernel), static_cast<const void*>(&wrong_version),
                          static_cast<const void*>(&fill)}) {
      memory.Map(p, sizeof(blit::KernelDescriptor));
    }
    memory.Map(&misaligned, sizeof(misaligned));
    memory.Map(&odd_size, sizeof(odd_size));
    memory.Map(target, sizeof(target));
    Reports reports;
    ComputeEngine engine("cp", &memory,
                         AqlQueueDescriptor{.ring_va = Va(ring.data()),
                                            .ring_bytes = 256,
                                            .read_dispatch_id_va = Va(&read_index),
                                            .write_dispatch_id_va = 0},
                         1, reports.Callbacks());
    aql::WritePacket(&ring[0], row.packet);
    engine.RingDoorbell(0);
    EXPECT_FALSE(engine.WaitIdle());
    EXPECT_EQ(reports.errors(), std::vector<QueueError>{row.error});
    EXPECT_EQ(target[0], 0u);
  }
}

// A queue whose read index sits in ROCr's amd_queue_t hears of its error through queue_inactive_signal: the CP
// stores ROCr's code (8 = INVALID_CODE_OBJECT) and interrupts on the signal's event. A read index in any other
// layout (the offset field does not read 128) is left alone.
TEST(ComputeEngineErrorTest, AQueueErrorRaisesTheAmdQueueInactiveSignal) {
  for (const bool amd_layout : {true, false}) {
    SCOPED_TRACE(amd_layout ? "amd_queue_t" : "other layout");
    IdentityPageTable memory;
    std::vector<Slot> ring(4);
    for (Slot& s : ring) aql::InvalidateSlot(&s);
    alignas(64) unsigned char amd_queue[256] = {};
    const uint64_t ring_va = Va(ring.data());
    std::memcpy(amd_queue + 8, &ring_va, 8);  // hsa_queue_t.base_address
    const uint32_t field_offset = amd_layout ? 128 : 0;
    std::memcpy(amd_queue + 136, &field_offset, 4);  // read_dispatch_id_field_base_byte_offset
    aql::AmdSignal inactive{};
    uint64_t mailbox = 0;
    inactive.kind = 1;
    inactive.event_mailbox_ptr = Va(&mailbox);
    inactive.event_id = 77;
    const uint64_t signal_va = Va(&inactive);
    std::memcpy(amd_queue + 192, &signal_va, 8);  // queue_inactive_signal
    memory.Map(ring.data(), sizeof(Slot) * ring.size());
    memory.Map(amd_queue, sizeof(amd_queue));
    memory.Map(&inactive, sizeof(inactive));
    memory.Map(&mailbox, sizeof(mailbox));
    blit::KernelDescriptor unknown = blit::MakeDescriptor(KernelId::kCopy);
    unknown.magic = 0;
    memory.Map(&unknown, sizeof(unknown));
    Reports reports;
    ComputeEngine engine("cp", &memory,
                         AqlQueueDescriptor{.ring_va = ring_va,
                                            .ring_bytes = 256,
                                            .read_dispatch_id_va = Va(amd_queue + 128),
                                            .write_dispatch_id_va = Va(amd_queue + 56)},
                         1, reports.Callbacks());
    aql::WritePacket(&ring[0], blit::MakeDispatch(Va(&unknown), Va(&unknown), 8));
    engine.RingDoorbell(0);
    EXPECT_FALSE(engine.WaitIdle());
    EXPECT_EQ(reports.errors(), std::vector<QueueError>{QueueError::kInvalidKernelObject});
    if (amd_layout) {
      EXPECT_EQ(std::atomic_ref<int64_t>(inactive.value).load(), 8);
      EXPECT_EQ(std::atomic_ref<uint64_t>(mailbox).load(), 77u);
      EXPECT_EQ(reports.interrupts(), std::vector<uint32_t>{77});
    } else {
      EXPECT_EQ(std::atomic_ref<int64_t>(inactive.value).load(), 0);
      EXPECT_EQ(std::atomic_ref<uint64_t>(mailbox).load(), 0u);
      EXPECT_TRUE(reports.interrupts().empty());
    }
  }
}

TEST(ComputeEngineErrorTest, UnusableRingIsAQueueErrorAtStart) {
  IdentityPageTable memory;
  Reports reports;
  uint64_t read_index = 0;
  alignas(64) unsigned char ring[192];
  ComputeEngine engine(
      "cp", &memory,
      AqlQueueDescriptor{
          .ring_va = Va(ring), .ring_bytes = 192, .read_dispatch_id_va = Va(&read_index), .write_dispatch_id_va = 0},
      1, reports.Callbacks());
  EXPECT_FALSE(engine.WaitIdle());
  EXPECT_EQ(reports.errors(), std::vector<QueueError>{QueueError::kInvalidQueue});
}

TEST_F(ComputeQueueTest, RingWrapsWithTheProducerWaitingForFreeSlots) {
  std::vector<uint8_t> counters(100, 0);
  memory_.Map(counters.data(), counters.size());
  aql::AmdSignal* gate = NewSignal(1);
  // The first barrier holds the CP while the producer fills the ring and has to wait for slots.
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    StoreValue(*gate, 0);
  });
  Submit(aql::MakeBarrierAnd({Va(gate), 0, 0, 0, 0}));
  for (uint8_t i = 0; i < 100; ++i) Submit(FillBytes(&counters[i], static_cast<uint8_t>(i + 1), 1));
  release.join();
  ASSERT_TRUE(engine_->WaitIdle());
  for (size_t i = 0; i < counters.size(); ++i) EXPECT_EQ(counters[i], i + 1) << i;
  EXPECT_EQ(engine_->read_index(), 101u);
  EXPECT_EQ(std::atomic_ref<uint64_t>(read_index_).load(), 101u) << "read_dispatch_id is written back";
  for (const Slot& s : ring_) {
    uint16_t header = 0;
    std::memcpy(&header, s.bytes, sizeof(header));
    EXPECT_EQ(aql::TypeOf(header), aql::PacketType::kInvalid) << "consumed slots are handed back INVALID";
  }
}

TEST_F(ComputeQueueTest, SlotAnnouncedBeforeItIsPublishedWaitsForTheNextRing) {
  // Two producers: the one holding index 1 publishes and rings first; index 0 is still INVALID.
  std::vector<uint8_t> buf(2, 0);
  memory_.Map(buf.data(), 2);
  aql::AmdSignal* first = NewSignal(1);
  aql::AmdSignal* second = NewSignal(1);
  aql::WritePacket(&ring_[1], FillBytes(&buf[1], 2, 1, Va(second)));
  engine_->RingDoorbell(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(LoadValue(*second), 1) << "packets run in order: index 1 waits for index 0";
  aql::WritePacket(&ring_[0], FillBytes(&buf[0], 1, 1, Va(first)));
  engine_->RingDoorbell(0);  // a lower value than the doorbell held: the CP still runs up to index 1
  ASSERT_TRUE(WaitForValue(*second, 0));
  EXPECT_EQ(LoadValue(*first), 0);
  ASSERT_TRUE(engine_->WaitIdle());
  EXPECT_EQ(engine_->read_index(), 2u);
  EXPECT_EQ(buf, (std::vector<uint8_t>{1, 2}));
}

TEST_F(ComputeQueueTest, PublishedPacketsPastTheRungIndexRunToo) {
  // Index 1's producer rang first, then index 0's ring overwrote the doorbell word with the lower value.
  std::vector<uint8_t> buf(2, 0);
  memory_.Map(buf.data(), 2);
  aql::AmdSignal* second = NewSignal(1);
  aql::WritePacket(&ring_[0], FillBytes(&buf[0], 1, 1));
  aql::WritePacket(&ring_[1], FillBytes(&buf[1], 2, 1, Va(second)));
  engine_->RingDoorbell(0);
  ASSERT_TRUE(WaitForValue(*second, 0));
  // read_dispatch_id is written back before the completion signal fires.
  EXPECT_EQ(std::atomic_ref<uint64_t>(read_index_).load(std::memory_order_acquire), 2u);
  EXPECT_EQ(buf, (std::vector<uint8_t>{1, 2}));
}

TEST_F(ComputeQueueTest, IdleEngineSleepsInsteadOfPolling) {
  timespec before{}, after{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &before);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &after);
  const double cpu_ms = (after.tv_sec - before.tv_sec) * 1e3 + (after.tv_nsec - before.tv_nsec) / 1e6;
  EXPECT_LT(cpu_ms, 50.0) << "an idle CP and its compute units must block";
}

TEST_F(ComputeQueueTest, BareDoorbellStoreFromIdleRunsThePackets) {
  // ROCr publishes a packet and stores its index to the doorbell, with no wake; the CP must notice the store.
  engine_ = std::make_unique<ComputeEngine>("cp0", &memory_,
                                            AqlQueueDescriptor{.ring_va = Va(ring_.data()),
                                                               .ring_bytes = kSlots * aql::kPacketBytes,
                                                               .read_dispatch_id_va = Va(&read_index_),
                                                               .write_dispatch_id_va = Va(&write_index_),
                                                               .doorbell = &client_doorbell_},
                                            4, reports_.Callbacks());
  std::vector<uint8_t> src(3000), dst(3000, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 11 + 3);
  memory_.Map(src.data(), src.size());
  memory_.Map(dst.data(), dst.size());
  aql::AmdSignal* done = NewSignal(1);
  aql::WritePacket(&ring_[0], Copy(dst.data(), src.data(), src.size()));
  aql::WritePacket(&ring_[1], FillBytes(&dst[0], 0x5A, 1, Va(done)));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the CP is asleep on its doorbell
  std::atomic_ref<uint64_t>(client_doorbell_).store(1, std::memory_order_release);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (LoadValue(*done) != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  ASSERT_EQ(LoadValue(*done), 0) << "store not noticed in 1 s";
  EXPECT_EQ(dst[0], 0x5A);
  EXPECT_TRUE(std::equal(src.begin() + 1, src.end(), dst.begin() + 1));
  EXPECT_EQ(std::atomic_ref<uint64_t>(read_index_).load(std::memory_order_acquire), 2u);
}

TEST(ComputeEngineTest, ComputeUnitWorkersAreCappedByHostThreads) {
  IdentityPageTable memory;
  uint64_t read_index = 0;
  std::vector<Slot> ring(4);
  const unsigned host = std::max(1u, std::thread::hardware_concurrency());
  ComputeEngine mi300x("cp", &memory,
                       AqlQueueDescriptor{.ring_va = Va(ring.data()),
                                          .ring_bytes = 256,
                                          .read_dispatch_id_va = Va(&read_index),
                                          .write_dispatch_id_va = 0},
                       304, {});
  EXPECT_EQ(mi300x.worker_count(), static_cast<int>(std::min(304u, host)));
  ComputeEngine one("cp", &memory,
                    AqlQueueDescriptor{.ring_va = Va(ring.data()),
                                       .ring_bytes = 256,
                                       .read_dispatch_id_va = Va(&read_index),
                                       .write_dispatch_id_va = 0},
                    1, {});
  EXPECT_EQ(one.worker_count(), 1);
}

TEST(ComputeEngineTest, DestroyingDuringAnEndlessBarrierReturns) {
  IdentityPageTable memory;
  std::vector<Slot> ring(4);
  for (Slot& s : ring) aql::InvalidateSlot(&s);
  uint64_t read_index = 0;
  alignas(64) aql::AmdSignal never{};
  never.value = 1;
  memory.Map(ring.data(), 256);
  memory.Map(&read_index, 8);
  memory.Map(&never, sizeof(never));
  auto engine = std::make_unique<ComputeEngine>("cp", &memory,
                                                AqlQueueDescriptor{.ring_va = Va(ring.data()),
                                                                   .ring_bytes = 256,
                                                                   .read_dispatch_id_va = Va(&read_index),
                                                                   .write_dispatch_id_va = 0},
                                                2, ComputeEngine::Callbacks{});
  aql::WritePacket(&ring[0], aql::MakeBarrierAnd({Va(&never), 0, 0, 0, 0}));
  engine->RingDoorbell(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto start = std::chrono::steady_clock::now();
  engine.reset();  // must not hang
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(read_index, 0u);
}

// With AMD_QUEUE_PROPERTIES_ENABLE_PROFILING set in the amd_queue_t, the CP stamps each packet's start and end
// (GPU clock counter) into its completion signal before decrementing it, for barriers and dispatches alike; with
// the bit clear, or for a queue outside ROCr's layout, the signal's timestamps stay untouched.
TEST(ComputeEngineProfilingTest, ProfilingQueuesStampStartAndEndIntoCompletionSignals) {
  constexpr GpuClock kClock(GpuClock::kDefaultFrequencyHz);
  for (const bool amd_layout : {true, false}) {
    SCOPED_TRACE(amd_layout ? "amd_queue_t" : "other layout");
    IdentityPageTable memory;
    std::vector<Slot> ring(4);
    for (Slot& s : ring) aql::InvalidateSlot(&s);
    alignas(64) unsigned char amd_queue[256] = {};
    const uint64_t ring_va = Va(ring.data());
    std::memcpy(amd_queue + 8, &ring_va, 8);  // hsa_queue_t.base_address
    const uint32_t field_offset = amd_layout ? 128 : 0;
    std::memcpy(amd_queue + 136, &field_offset, 4);  // read_dispatch_id_field_base_byte_offset
    auto* properties = reinterpret_cast<uint32_t*>(amd_queue + 180);
    std::deque<aql::AmdSignal> signals(4);
    alignas(64) unsigned char target[256] = {};
    blit::KernelDescriptor fill = blit::MakeDescriptor(KernelId::kFill);
    Slot kernargs;
    const blit::FillArgs args = blit::MakeFillArgs(Va(target), 0x12345678u, sizeof(target));
    std::memcpy(kernargs.bytes, &args, sizeof(args));
    memory.Map(ring.data(), sizeof(Slot) * ring.size());
    memory.Map(amd_queue, sizeof(amd_queue));
    for (aql::AmdSignal& signal : signals) {
      signal.kind = 1;
      signal.value = 1;
      memory.Map(&signal, sizeof(signal));
    }
    memory.Map(target, sizeof(target));
    memory.Map(&fill, sizeof(fill));
    memory.Map(kernargs.bytes, sizeof(kernargs.bytes));
    ComputeEngine engine("cp", &memory,
                         AqlQueueDescriptor{.ring_va = ring_va,
                                            .ring_bytes = 256,
                                            .read_dispatch_id_va = Va(amd_queue + 128),
                                            .write_dispatch_id_va = Va(amd_queue + 56),
                                            .clock = kClock},
                         1, ComputeEngine::Callbacks{});
    std::atomic_ref<uint32_t>(*properties).store(1u << 3);  // ENABLE_PROFILING
    const uint64_t before = kClock.Now();
    aql::WritePacket(&ring[0], aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(&signals[0])));
    aql::WritePacket(&ring[1], blit::MakeDispatch(Va(&fill), Va(kernargs.bytes), sizeof(target), Va(&signals[1])));
    engine.RingDoorbell(1);
    ASSERT_TRUE(engine.WaitIdle());
    const uint64_t after = kClock.Now();
    for (int i = 0; i < 2; ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(LoadValue(signals[i]), 0);
      if (amd_layout) {
        EXPECT_GE(signals[i].start_ts, before);
        EXPECT_GE(signals[i].end_ts, signals[i].start_ts);
        EXPECT_LE(signals[i].end_ts, after);
      } else {
        EXPECT_EQ(signals[i].start_ts, 0u);
        EXPECT_EQ(signals[i].end_ts, 0u);
      }
    }
    if (amd_layout) {
      EXPECT_LE(signals[0].end_ts, signals[1].start_ts);  // packets run one after another
    }

    std::atomic_ref<uint32_t>(*properties).store(0);  // profiling off again: later packets are not stamped
    aql::WritePacket(&ring[2], aql::MakeBarrierAnd({0, 0, 0, 0, 0}, Va(&signals[2])));
    engine.RingDoorbell(2);
    ASSERT_TRUE(engine.WaitIdle());
    EXPECT_EQ(LoadValue(signals[2]), 0);
    EXPECT_EQ(signals[2].start_ts, 0u);
    EXPECT_EQ(signals[2].end_ts, 0u);
  }
}

}  // namespace
}  // namespace hipmem::kfd_sim
