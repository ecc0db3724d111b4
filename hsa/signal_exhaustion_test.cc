// Issue #24 §2: when the process's KFD signal events are used up, HSA keeps working as ROCr does: new signals
// are polled ones (no event), the copy engines made afterwards run without events of their own, and every copy
// completes its signal with the right data. Once events are given back, new signals get events again.
//
// The events are taken straight from the KFD process the runtime uses (as another library of the process
// calling hsaKmtCreateEvent would), so the runtime finds none left when it first needs one.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/status/status.h"
#include "gpu_abi/aql_packets.h"
#include "gtest/gtest.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"
#include "hsa/runtime_kfd.h"
#include "testing/status_matchers.h"
#include "thunk/events.h"

namespace hipmem::hsa {
namespace {

constexpr uint64_t kForever = UINT64_MAX;

const gpu_abi::aql::AmdSignal& Abi(hsa_signal_t s) {
  return *reinterpret_cast<const gpu_abi::aql::AmdSignal*>(s.handle);
}

// Every signal event the KFD process still has, until it answers ENOSPC (kResourceExhausted).
std::vector<thunk::Event> TakeEverySignalEvent(thunk::Kfd& kfd) {
  std::vector<thunk::Event> taken;
  while (true) {
    absl::StatusOr<thunk::Event> e =
        thunk::Event::Create(kfd, thunk::EventDescriptor{.type = thunk::EventType::kSignal, .node = thunk::NodeId(0)});
    if (!e.ok()) {
      EXPECT_TRUE(absl::IsResourceExhausted(e.status())) << e.status();
      return taken;
    }
    taken.push_back(*std::move(e));
    if (taken.size() > 100'000) {
      ADD_FAILURE() << "the KFD never ran out of signal events";
      return taken;
    }
  }
}

class SignalExhaustionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    const hsa_test::CAgents agents = hsa_test::CollectAgents();
    ASSERT_FALSE(agents.cpus.empty());
    ASSERT_FALSE(agents.gpus.empty());
    cpu_ = agents.cpus[0];
    gpu_ = agents.gpus[0];
    system_pool_ = hsa_test::GlobalPoolWithAny(cpu_, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED |
                                                         HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    vram_pool_ = hsa_test::GlobalPoolWithAny(gpu_, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    ASSERT_NE(system_pool_.handle, 0u);
    ASSERT_NE(vram_pool_.handle, 0u);
    ASSERT_OK_AND_ASSIGN(Runtime * runtime, SharedRuntime());
    kfd_ = &KfdOf(*runtime);
  }

  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  // host -> VRAM -> VRAM -> host through hsa_amd_memory_async_copy, each waited on its completion signal.
  void ExpectCopiesRoundTrip() {
    constexpr size_t kBytes = 1 << 20;
    void* host_in = nullptr;
    void* host_out = nullptr;
    void* vram_a = nullptr;
    void* vram_b = nullptr;
    ASSERT_EQ(hsa_amd_memory_pool_allocate(system_pool_, kBytes, 0, &host_in), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_amd_memory_pool_allocate(system_pool_, kBytes, 0, &host_out), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_pool_, kBytes, 0, &vram_a), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_pool_, kBytes, 0, &vram_b), HSA_STATUS_SUCCESS);
    hsa_agent_t both[] = {cpu_, gpu_};
    for (void* p : {host_in, host_out, vram_a, vram_b}) {
      ASSERT_EQ(hsa_amd_agents_allow_access(2, both, nullptr, p), HSA_STATUS_SUCCESS);
    }
    auto* in = static_cast<uint8_t*>(host_in);
    std::iota(in, in + kBytes, uint8_t{3});
    std::memset(host_out, 0, kBytes);

    struct Step {
      void* dst;
      hsa_agent_t dst_agent;
      void* src;
      hsa_agent_t src_agent;
    };
    const Step steps[] = {{vram_a, gpu_, host_in, cpu_}, {vram_b, gpu_, vram_a, gpu_}, {host_out, cpu_, vram_b, gpu_}};
    for (const Step& step : steps) {
      hsa_signal_t done{0};
      ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &done), HSA_STATUS_SUCCESS);
      ASSERT_EQ(hsa_amd_memory_async_copy(step.dst, step.dst_agent, step.src, step.src_agent, kBytes, 0, nullptr, done),
                HSA_STATUS_SUCCESS);
      EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, kForever, HSA_WAIT_STATE_BLOCKED), 0);
      EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
    }
    EXPECT_EQ(std::memcmp(host_out, host_in, kBytes), 0);
    for (void* p : {host_in, host_out, vram_a, vram_b}) EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
  }

  hsa_agent_t cpu_{0};
  hsa_agent_t gpu_{0};
  hsa_amd_memory_pool_t system_pool_{0};
  hsa_amd_memory_pool_t vram_pool_{0};
  thunk::Kfd* kfd_ = nullptr;
};

TEST_F(SignalExhaustionTest, CopiesMadeAfterTheKfdRanOutOfEventsCompleteWithTheRightData) {
  std::vector<thunk::Event> taken = TakeEverySignalEvent(*kfd_);
  ASSERT_FALSE(taken.empty());
  // The first copies of the runtime: their engines' queues are made now, with no event to be had.
  ExpectCopiesRoundTrip();
  // A host thread's store still wakes a blocked waiter of a polled signal.
  hsa_signal_t s{0};
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Abi(s).event_mailbox_ptr, 0u) << "no event was left for it: a polled signal";
  hsa_signal_store_screlease(s, 0);
  EXPECT_EQ(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, kForever, HSA_WAIT_STATE_BLOCKED), 0);
  EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
}

TEST_F(SignalExhaustionTest, SignalsOutnumberingTheKfdsEventsGiveTheirSlotsBackWhenDestroyed) {
  // More live interrupt signals than the KFD has events: the last ones are polled.
  std::vector<hsa_signal_t> signals(5'000);
  for (hsa_signal_t& s : signals) ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &s), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Abi(signals.back()).event_mailbox_ptr, 0u);
  for (hsa_signal_t s : signals) ASSERT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
  // The runtime gave most of their events back to the KFD, and tries again: a new signal has one.
  hsa_signal_t again{0};
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &again), HSA_STATUS_SUCCESS);
  EXPECT_NE(Abi(again).event_mailbox_ptr, 0u);
  EXPECT_EQ(hsa_signal_destroy(again), HSA_STATUS_SUCCESS);
  // Most of the KFD's slots are free again for the rest of the process (the runtime keeps a few hundred idle).
  std::vector<thunk::Event> taken = TakeEverySignalEvent(*kfd_);
  EXPECT_GT(taken.size(), 3'000u);
  taken.clear();
  ExpectCopiesRoundTrip();
}

}  // namespace
}  // namespace hipmem::hsa
