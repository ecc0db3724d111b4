// Queues through the thunk's C++ API on a simulated MI300X: an SDMA queue created with Queue::Create runs
// copies and fills written into its ring, and signals a thunk Event the way ROCr's SDMA blit does.
#include "thunk/queues.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "gpu_abi/sdma_packets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/events.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;
using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpuNode(1);
// System memory the CPU writes and every GPU maps (GTT, host-visible).
constexpr MemFlags kHostVisible = MemFlags::kNonPaged | MemFlags::kHostAccess;
constexpr Bytes kRing = Bytes::KiB(4);

class QueuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::DefaultTopology()));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine_));
    ASSERT_OK_AND_ASSIGN(kfd_, Kfd::Open(std::move(device)));
    ring_ = Allocate(kRing);
  }

  // Host-visible system memory mapped on the GPU; CPU address == GPU address.
  char* Allocate(Bytes size) {
    absl::StatusOr<DeviceAddress> address = Unowned(kfd_->AllocMemory(kCpuNode, size, kHostVisible));
    EXPECT_THAT(address, IsOk());
    if (!address.ok()) return nullptr;
    EXPECT_THAT(kfd_->MapMemoryToGpu(*address), IsOk());
    return static_cast<char*>(address->ToPointer());
  }

  QueueSpec SdmaSpec() const {
    return QueueSpec{.node = kGpuNode,
                     .type = QueueType::kSdma,
                     .percentage = 100,
                     .priority = QueuePriority::kMaximum,
                     .ring = DeviceAddress::FromPointer(ring_),
                     .ring_size = kRing};
  }

  template <typename Packet>
  void Push(const Packet& packet) {
    for (size_t i = 0; i < sizeof(Packet); i += 4) {
      std::memcpy(ring_ + (wptr_ + i) % kRing.raw(), reinterpret_cast<const char*>(&packet) + i, 4);
    }
    wptr_ += sizeof(Packet);
  }

  // ROCr's SDMA completion signal: the event id into the event's mailbox, then a trap carrying it.
  void PushSignal(const EventHandle& event) {
    Push(sdma::MakeFence(reinterpret_cast<uint64_t>(event.mailbox), event.trigger_data));
    Push(sdma::MakeTrap(event.trigger_data));
  }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> kfd_;
  char* ring_ = nullptr;
  uint64_t wptr_ = 0;
};

TEST_F(QueuesTest, SdmaQueueCopiesFillsAndSignalsAnEvent) {
  ASSERT_OK_AND_ASSIGN(Queue queue, Queue::Create(*kfd_, SdmaSpec()));
  ASSERT_OK_AND_ASSIGN(Event done, Event::Create(*kfd_, EventDescriptor{.type = EventType::kSignal}));
  char* src = Allocate(Bytes::MiB(1));
  char* dst = Allocate(Bytes::MiB(1));
  for (size_t i = 0; i < Bytes::MiB(1).raw(); ++i) src[i] = static_cast<char>(i % 251);

  Push(sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), Bytes::KiB(768).raw()));
  Push(sdma::MakeFill(reinterpret_cast<uint64_t>(dst) + Bytes::KiB(768).raw(), 0x01020304, Bytes::KiB(256).raw()));
  PushSignal(done.handle());
  queue.RingDoorbell(wptr_);
  ASSERT_THAT(done.Wait(absl::Seconds(10)), IsOk());

  EXPECT_EQ(std::memcmp(dst, src, Bytes::KiB(768).raw()), 0);
  uint32_t word = 0;
  std::memcpy(&word, dst + Bytes::MiB(1).raw() - 4, 4);
  EXPECT_EQ(word, 0x01020304u);
  // The read pointer is written back after the trap that woke us: it reaches the end soon after.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::atomic_ref<uint64_t>(*queue.read_pointer()).load() != wptr_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(std::atomic_ref<uint64_t>(*queue.read_pointer()).load(), wptr_);
}

TEST_F(QueuesTest, TwoQueuesGetDistinctIdsAndDoorbellsInOneSlice) {
  ASSERT_OK_AND_ASSIGN(Queue a, Queue::Create(*kfd_, SdmaSpec()));
  ASSERT_OK_AND_ASSIGN(Queue b, Queue::Create(*kfd_, SdmaSpec()));
  EXPECT_NE(a.id(), b.id());
  EXPECT_NE(a.doorbell(), b.doorbell());
  EXPECT_LT(std::abs(reinterpret_cast<char*>(a.doorbell()) - reinterpret_cast<char*>(b.doorbell())),
            static_cast<long>(Kfd::kDoorbellSliceBytes));
  EXPECT_NE(a.read_pointer(), b.read_pointer());
}

TEST_F(QueuesTest, BadSpecsAreRefusedBeforeTheKernel) {
  struct Row {
    const char* what;
    void (*mutate)(QueueSpec&);
    absl::StatusCode code;
    HSAKMT_STATUS hsakmt;
  };
  const Row rows[] = {
      {"percentage above 100", [](QueueSpec& s) { s.percentage = 101; }, absl::StatusCode::kInvalidArgument,
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"priority beyond MAXIMUM", [](QueueSpec& s) { s.priority = static_cast<QueuePriority>(4); },
       absl::StatusCode::kInvalidArgument, HSAKMT_STATUS_INVALID_PARAMETER},
      {"null ring", [](QueueSpec& s) { s.ring = DeviceAddress(0); }, absl::StatusCode::kInvalidArgument,
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"ring size not a power of two", [](QueueSpec& s) { s.ring_size = Bytes(3000); },
       absl::StatusCode::kInvalidArgument, HSAKMT_STATUS_INVALID_PARAMETER},
      {"unknown type", [](QueueSpec& s) { s.type = static_cast<QueueType>(3); }, absl::StatusCode::kInvalidArgument,
       HSAKMT_STATUS_INVALID_PARAMETER},
      {"AQL without pointers", [](QueueSpec& s) { s.type = QueueType::kComputeAql; },
       absl::StatusCode::kInvalidArgument, HSAKMT_STATUS_INVALID_PARAMETER},
      {"CPU node", [](QueueSpec& s) { s.node = kCpuNode; }, absl::StatusCode::kInvalidArgument,
       HSAKMT_STATUS_INVALID_NODE_UNIT},
      {"ring the GPU does not map", [](QueueSpec& s) { s.ring = DeviceAddress(uint64_t{1} << 40); },
       absl::StatusCode::kInvalidArgument, HSAKMT_STATUS_ERROR},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    QueueSpec spec = SdmaSpec();
    row.mutate(spec);
    absl::StatusOr<Queue> queue = Queue::Create(*kfd_, spec);
    ASSERT_FALSE(queue.ok());
    EXPECT_EQ(queue.status().code(), row.code) << queue.status();
    EXPECT_EQ(ToHsakmtStatus(queue.status()), row.hsakmt) << queue.status();
  }
  const kfd_sim::SimSnapshot snapshot = machine_->simulator().Snapshot();
  EXPECT_TRUE(snapshot.processes.at(0).queues.empty());
}

TEST_F(QueuesTest, SlotExhaustionIsAnErrorAndDestroyingFreesTheSlotAndThePointers) {
  const kfd_sim::GpuConfig& gpu = machine_->simulator().topology().gpus[0];
  std::vector<Queue> queues;
  for (uint32_t i = 0; i < gpu.num_sdma_engines * 8; ++i) {
    ASSERT_OK_AND_ASSIGN(Queue q, Queue::Create(*kfd_, SdmaSpec()));
    queues.push_back(std::move(q));
  }
  const Bytes system_used = machine_->simulator().Snapshot().system_used;
  EXPECT_THAT(Queue::Create(*kfd_, SdmaSpec()), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(machine_->simulator().Snapshot().system_used, system_used) << "the refused queue's pointers were freed";
  ASSERT_THAT(std::move(queues.back()).Destroy(), IsOk());
  queues.pop_back();
  EXPECT_LT(machine_->simulator().Snapshot().system_used, system_used);
  EXPECT_THAT(Queue::Create(*kfd_, SdmaSpec()), IsOk());
}

TEST_F(QueuesTest, UpdateToZeroPercentParksTheQueue) {
  ASSERT_OK_AND_ASSIGN(Queue queue, Queue::Create(*kfd_, SdmaSpec()));
  ASSERT_THAT(queue.Update(0, QueuePriority::kNormal, DeviceAddress::FromPointer(ring_), kRing), IsOk());
  EXPECT_FALSE(machine_->simulator().Snapshot().processes.at(0).queues.at(0).active);
  ASSERT_THAT(queue.Update(100, QueuePriority::kNormal, DeviceAddress::FromPointer(ring_), kRing), IsOk());
  EXPECT_TRUE(machine_->simulator().Snapshot().processes.at(0).queues.at(0).active);
  EXPECT_THAT(queue.Update(101, QueuePriority::kNormal, DeviceAddress::FromPointer(ring_), kRing),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(QueuesTest, UpdateWithANullRingParksTheQueueUntilARingComesBack) {
  ASSERT_OK_AND_ASSIGN(Queue queue, Queue::Create(*kfd_, SdmaSpec()));
  ASSERT_THAT(queue.Update(100, QueuePriority::kNormal, DeviceAddress(0), Bytes(0)), IsOk());
  EXPECT_FALSE(machine_->simulator().Snapshot().processes.at(0).queues.at(0).active);
  ASSERT_THAT(queue.Update(100, QueuePriority::kNormal, DeviceAddress::FromPointer(ring_), kRing), IsOk());
  EXPECT_TRUE(machine_->simulator().Snapshot().processes.at(0).queues.at(0).active);
  ASSERT_THAT(queue.Update(100, QueuePriority::kNormal, DeviceAddress(0), kRing), IsOk()) << "any size, as the kernel";
  EXPECT_FALSE(machine_->simulator().Snapshot().processes.at(0).queues.at(0).active);
  EXPECT_THAT(queue.Update(100, QueuePriority::kNormal, DeviceAddress(0), Bytes(3000)),
              StatusIs(absl::StatusCode::kInvalidArgument))
      << "a size is 0 or a power of two";
}

TEST_F(QueuesTest, DestroyTwiceIsAnErrorNotACrash) {
  ASSERT_OK_AND_ASSIGN(Queue queue, Queue::Create(*kfd_, SdmaSpec()));
  Queue moved = std::move(queue);
  EXPECT_THAT(std::move(queue).Destroy(), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(std::move(moved).Destroy(), IsOk());
  EXPECT_THAT(std::move(moved).Destroy(), StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace hipmem::thunk
