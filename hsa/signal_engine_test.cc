// A GPU engine completing an HSA signal wakes the host thread blocked on it: the amd_signal_t the C API
// hands out is what a queue's completion sequence writes. On the simulated GPU of the shared runtime's KFD
// process, a raw queue (built through the thunk, as ROCr's blits are) runs
//   SDMA: ATOMIC add64(-1) on the signal's value, FENCE writing its event id into its event mailbox, TRAP
//         (ROCr's BlitSdma completion), and
//   AQL:  a BARRIER_AND whose completion signal is the signal (the CP decrements it, writes the mailbox and
//         interrupts), itself waiting on a second signal the host clears,
// while a thread sleeps in hsa_signal_wait_scacquire, or the async handler thread waits on it. Nothing on the
// host stores to the waited signal, so only the engine's interrupt can wake the waiter.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "testing/notification.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/runtime.h"
#include "thunk/kfd_testing.h"
#include "hsa/runtime_kfd.h"
#include "testing/status_matchers.h"
#include "thunk/kfd.h"
#include "thunk/queues.h"

namespace hipmem::hsa {
namespace {

namespace aql = ::hipmem::gpu_abi::aql;
namespace sdma = ::hipmem::gpu_abi::sdma;
using thunk::MemFlags;

constexpr MemFlags kQueueMemory =
    MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kUncached | MemFlags::kExecuteAccess;
constexpr Bytes kRingBytes = Bytes::KiB(4);
// A bound on every wait here: an interrupt that never comes fails the test instead of hanging it.
constexpr uint64_t kTenSeconds = 10'000'000'000;  // timestamp ticks are nanoseconds

hsa_status_t FindGpu(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (type == HSA_DEVICE_TYPE_GPU) *static_cast<hsa_agent_t*>(data) = agent;
  return HSA_STATUS_SUCCESS;
}

const aql::AmdSignal& Abi(hsa_signal_t s) { return *reinterpret_cast<const aql::AmdSignal*>(s.handle); }

class SignalEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    hsa_agent_t gpu{0};
    ASSERT_EQ(hsa_iterate_agents(FindGpu, &gpu), HSA_STATUS_SUCCESS);
    ASSERT_OK_AND_ASSIGN(runtime_, SharedRuntime());
    ASSERT_OK_AND_ASSIGN(const Agent* agent, runtime_->GetAgent(AgentId(gpu.handle)));
    node_ = KfdNodeOf(*runtime_, *agent);
    // Ring and pointers in system memory mapped on the GPU, as the runtime's own queues.
    for (DeviceAddress* a : {&ring_, &control_}) {
      ASSERT_OK_AND_ASSIGN(*a, thunk::Unowned(kfd().AllocMemory(thunk::NodeId(0), kRingBytes, kQueueMemory)));
      ASSERT_THAT(kfd().MapMemoryToGpu(*a, std::span<const thunk::NodeId>(&node_, 1)), hipmem_testing::IsOk());
    }
  }

  void TearDown() override {
    queue_.reset();  // before the memory it reads
    for (DeviceAddress a : {ring_, control_}) {
      if (a.raw() != 0) {
        EXPECT_THAT(kfd().FreeMemory(a), hipmem_testing::IsOk());
      }
    }
    for (hsa_signal_t s : signals_) EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  }

  thunk::Kfd& kfd() { return KfdOf(*runtime_); }

  hsa_signal_t MakeSignal(hsa_signal_value_t value) {
    hsa_signal_t s{0};
    EXPECT_EQ(hsa_signal_create(value, 0, nullptr, &s), HSA_STATUS_SUCCESS);
    signals_.push_back(s);
    return s;
  }

  void MakeQueue(thunk::QueueType type) {
    thunk::QueueSpec spec{.node = node_, .type = type, .ring = ring_, .ring_size = kRingBytes};
    if (type == thunk::QueueType::kComputeAql) {
      for (uint64_t slot = 0; slot < kRingBytes.raw() / aql::kPacketBytes; ++slot) {
        aql::InvalidateSlot(static_cast<char*>(ring_.ToPointer()) + slot * aql::kPacketBytes);
      }
      spec.aql_read_pointer = control_;
      spec.aql_write_pointer = control_ + Bytes(8);
    }
    ASSERT_OK_AND_ASSIGN(thunk::Queue queue, thunk::Queue::Create(kfd(), spec));
    queue_.emplace(std::move(queue));
  }

  // ROCr's SDMA completion of `s`: decrement the value, write the event id into the mailbox, interrupt.
  void SubmitSdmaCompletion(hsa_signal_t s) {
    const aql::AmdSignal& abi = Abi(s);
    ASSERT_NE(abi.event_mailbox_ptr, 0u);
    char* ring = static_cast<char*>(ring_.ToPointer());
    uint64_t wptr = *queue_->write_pointer();
    auto push = [&](const auto& packet) {
      std::memcpy(ring + wptr % kRingBytes.raw(), &packet, sizeof(packet));
      wptr += sizeof(packet);
    };
    push(sdma::MakeAtomic(s.handle + aql::kSignalValueOffset, sdma::AtomicOp::kAdd64, static_cast<uint64_t>(-1)));
    push(sdma::MakeFence(abi.event_mailbox_ptr, abi.event_id));
    push(sdma::MakeTrap(abi.event_id));
    std::atomic_ref<uint64_t>(*queue_->write_pointer()).store(wptr, std::memory_order_release);
    queue_->RingDoorbell(wptr);
  }

  // A BARRIER_AND on `dependency` whose completion signal is `s`.
  void SubmitAqlBarrier(hsa_signal_t dependency, hsa_signal_t s) {
    const uint64_t deps[aql::kMaxDepSignals] = {dependency.handle, 0, 0, 0, 0};
    aql::WritePacket(ring_.ToPointer(), aql::MakeBarrierAnd(deps, s.handle));
    std::atomic_ref<uint64_t>(*static_cast<uint64_t*>((control_ + Bytes(8)).ToPointer()))
        .store(1, std::memory_order_release);
    queue_->RingDoorbell(0);
  }

  Runtime* runtime_ = nullptr;
  thunk::NodeId node_{0};
  DeviceAddress ring_{0}, control_{0};
  std::optional<thunk::Queue> queue_;
  std::vector<hsa_signal_t> signals_;
};

// Runs `wait` on a thread and checks it is still blocked after a while, before `complete` runs.
template <typename Wait, typename Complete>
hsa_signal_value_t WaitAcross(Wait wait, Complete complete) {
  std::atomic<bool> returned{false};
  hsa_signal_value_t seen = -1;
  std::thread waiter([&] {
    seen = wait();
    returned = true;
  });
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(returned) << "the waiter returned before the engine ran";
  complete();
  waiter.join();
  return seen;
}

TEST_F(SignalEngineTest, SdmaCompletionWakesABlockedWait) {
  MakeQueue(thunk::QueueType::kSdma);
  const hsa_signal_t s = MakeSignal(1);
  const absl::Time start = absl::Now();
  const hsa_signal_value_t seen = WaitAcross(
      [&] { return hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, kTenSeconds, HSA_WAIT_STATE_BLOCKED); },
      [&] { SubmitSdmaCompletion(s); });
  EXPECT_EQ(seen, 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(hsa_signal_load_scacquire(s), 0);
}

TEST_F(SignalEngineTest, AqlBarrierCompletionWakesABlockedWaitAndReadsTheHostsSignal) {
  MakeQueue(thunk::QueueType::kComputeAql);
  const hsa_signal_t gate = MakeSignal(1);  // the barrier waits for it to reach 0
  const hsa_signal_t done = MakeSignal(1);
  SubmitAqlBarrier(gate, done);
  const hsa_signal_value_t seen = WaitAcross(
      [&] { return hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, kTenSeconds, HSA_WAIT_STATE_BLOCKED); },
      [&] { hsa_signal_store_screlease(gate, 0); });
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(hsa_signal_load_relaxed(done), 0);
}

TEST_F(SignalEngineTest, SdmaCompletionWakesTheAsyncHandlerThread) {
  MakeQueue(thunk::QueueType::kSdma);
  const hsa_signal_t s = MakeSignal(1);
  struct Seen {
    std::atomic<hsa_signal_value_t> value{-1};
    hipmem_testing::Notification called;
  } seen;
  ASSERT_EQ(hsa_amd_signal_async_handler(
                s, HSA_SIGNAL_CONDITION_EQ, 0,
                [](hsa_signal_value_t v, void* arg) {
                  static_cast<Seen*>(arg)->value = v;
                  static_cast<Seen*>(arg)->called.Notify();
                  return false;
                },
                &seen),
            HSA_STATUS_SUCCESS);
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(seen.called.HasBeenNotified());
  SubmitSdmaCompletion(s);
  ASSERT_TRUE(seen.called.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(seen.value, 0);
}

}  // namespace
}  // namespace hipmem::hsa
