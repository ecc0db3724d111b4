// A GPU without global wave sync (HIPMEM_SIM_NUM_GWS=0 in this test's environment: amdkfd's num_gws 0), as ROCr answers
// for it: the agent reports no cooperative queues, and hsa_queue_create(COOPERATIVE) is refused with
// INVALID_QUEUE_CREATION (GpuAgent::QueueCreate without GWS) and hands back no queue, while ordinary queues are made
// and run as before.
#include <cstdint>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"

namespace {

class NoGwsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    const hipmem::hsa_test::CAgents agents = hipmem::hsa_test::CollectAgents();
    ASSERT_FALSE(agents.gpus.empty());
    gpu_ = agents.gpus[0];
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  hsa_agent_t gpu_{};
};

TEST_F(NoGwsTest, TheAgentHasNoCooperativeQueuesAndRefusesOne) {
  bool cooperative = true;
  ASSERT_EQ(hsa_agent_get_info(gpu_, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES), &cooperative),
            HSA_STATUS_SUCCESS);
  EXPECT_FALSE(cooperative);
  hsa_queue_t* const untouched = reinterpret_cast<hsa_queue_t*>(uintptr_t{0x1234});
  hsa_queue_t* queue = untouched;
  EXPECT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  EXPECT_EQ(queue, untouched) << "no queue handed back";
  // Asked again, the same answer: nothing of the refused request stayed behind.
  EXPECT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);

  // An ordinary queue is made and its packet processor runs a barrier packet to completion.
  ASSERT_EQ(hsa_queue_create(gpu_, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue),
            HSA_STATUS_SUCCESS);
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->type, static_cast<uint32_t>(HSA_QUEUE_TYPE_MULTI));
  hsa_signal_t done{};
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &done), HSA_STATUS_SUCCESS);
  const uint64_t index = hsa_queue_add_write_index_relaxed(queue, 1);
  auto* packet = static_cast<hsa_barrier_and_packet_t*>(queue->base_address) + (index % queue->size);
  *packet = hsa_barrier_and_packet_t{};
  packet->completion_signal = done;
  const uint16_t header = static_cast<uint16_t>((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
                                                (1 << HSA_PACKET_HEADER_BARRIER));
  __atomic_store_n(&packet->header, header, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 0);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
}

}  // namespace
