// The AMD queue extensions as ROCr's clients use them: hsa_amd_queue_get_info for every attribute
// hsa_ext_amd.h declares, and dispatch profiling (hsa_amd_profiling_set_profiler_enabled,
// hsa_amd_profiling_get_dispatch_time) with packets run by the simulated compute CP.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

constexpr uint64_t kSecond = 1'000'000'000;  // timestamp ticks (HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY is 1 GHz)

struct Agents {
  std::vector<hsa_agent_t> gpus;
  std::vector<hsa_agent_t> cpus;
};

hsa_status_t Collect(hsa_agent_t agent, void* data) {
  hsa_device_type_t type{};
  if (hsa_status_t s = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type); s != HSA_STATUS_SUCCESS) return s;
  auto* agents = static_cast<Agents*>(data);
  (type == HSA_DEVICE_TYPE_GPU ? agents->gpus : agents->cpus).push_back(agent);
  return HSA_STATUS_SUCCESS;
}

// amd_signal_t as ROCr lays it out (amd_hsa_signal.h): what a signal handle points at.
struct AmdSignalView {
  int64_t kind;
  int64_t value;  // hardware_doorbell_ptr for a doorbell signal
  uint64_t event_mailbox_ptr;
  uint32_t event_id;
  uint32_t reserved1;
  uint64_t start_ts;
  uint64_t end_ts;
  uint64_t queue_ptr;
  uint32_t reserved3[2];
};
static_assert(sizeof(AmdSignalView) == 64);

[[maybe_unused]] uint64_t Now() {
  uint64_t t = 0;
  EXPECT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t), HSA_STATUS_SUCCESS);
  return t;
}

// Publishes a packet the way ROCr's clients do (body first, then the header with a release store) and rings
// the doorbell.
template <typename Packet>
void Submit(hsa_queue_t* queue, Packet packet, hsa_packet_type_t type) {
  const uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
  ASSERT_LT(index - hsa_queue_load_read_index_scacquire(queue), queue->size);
  auto* slot = static_cast<Packet*>(queue->base_address) + (index % queue->size);
  std::memcpy(reinterpret_cast<char*>(slot) + 4, reinterpret_cast<const char*>(&packet) + 4, sizeof(packet) - 4);
  const uint16_t header = static_cast<uint16_t>((type << HSA_PACKET_HEADER_TYPE) |
                                                (1 << HSA_PACKET_HEADER_BARRIER) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  uint32_t word = header;
  if constexpr (sizeof(packet) == sizeof(hsa_kernel_dispatch_packet_t) &&
                std::is_same_v<Packet, hsa_kernel_dispatch_packet_t>) {
    word |= uint32_t{packet.setup} << 16;
  }
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), word, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
}

[[maybe_unused]] void SubmitBarrier(hsa_queue_t* queue, hsa_signal_t completion) {
  hsa_barrier_and_packet_t packet{};
  packet.completion_signal = completion;
  Submit(queue, packet, HSA_PACKET_TYPE_BARRIER_AND);
}

class QueueExtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(Collect, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_FALSE(agents_.gpus.empty());
    ASSERT_FALSE(agents_.cpus.empty());
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  hsa_agent_t gpu() const { return agents_.gpus.back(); }

  hsa_queue_t* MakeQueue(hsa_agent_t agent) {
    hsa_queue_t* queue = nullptr;
    EXPECT_EQ(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue),
              HSA_STATUS_SUCCESS);
    return queue;
  }

  hsa_signal_t MakeSignal(hsa_signal_value_t value) {
    hsa_signal_t s{};
    EXPECT_EQ(hsa_signal_create(value, 0, nullptr, &s), HSA_STATUS_SUCCESS);
    return s;
  }

  Agents agents_;
};

TEST(QueueExtNoRuntimeTest, EveryCallNeedsInit) {
  hsa_queue_t fake{};
  hsa_agent_t agent{};
  EXPECT_EQ(hsa_amd_queue_get_info(&fake, HSA_AMD_QUEUE_INFO_AGENT, &agent), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_profiling_set_profiler_enabled(&fake, 1), HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_amd_profiling_dispatch_time_t time{};
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(hsa_agent_t{1}, hsa_signal_t{1}, &time),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_F(QueueExtTest, GetInfoAnswersEveryDeclaredAttribute) {
  hsa_queue_t* first = MakeQueue(agents_.gpus.front());
  hsa_queue_t* queue = MakeQueue(gpu());
  ASSERT_NE(first, nullptr);
  ASSERT_NE(queue, nullptr);

  hsa_agent_t agent{};
  ASSERT_EQ(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, &agent), HSA_STATUS_SUCCESS);
  EXPECT_EQ(agent.handle, gpu().handle);

  // The doorbell id is the hardware doorbell's address, the same word the doorbell signal stores to.
  uint64_t doorbell = 0;
  uint64_t first_doorbell = 0;
  ASSERT_EQ(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_DOORBELL_ID, &doorbell), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_queue_get_info(first, HSA_AMD_QUEUE_INFO_DOORBELL_ID, &first_doorbell), HSA_STATUS_SUCCESS);
  const auto* signal = reinterpret_cast<const AmdSignalView*>(queue->doorbell_signal.handle);
  EXPECT_NE(doorbell, 0u);
  EXPECT_EQ(doorbell, static_cast<uint64_t>(signal->value));
  EXPECT_NE(doorbell, first_doorbell);

  uint32_t use_count = 0;
  ASSERT_EQ(hsa_amd_queue_get_info(queue, HSA_QUEUE_INFO_USE_COUNT, &use_count), HSA_STATUS_SUCCESS);
  EXPECT_EQ(use_count, UINT32_MAX);  // not a counted queue

  uint32_t hw_id = 0;
  ASSERT_EQ(hsa_amd_queue_get_info(queue, HSA_QUEUE_INFO_HW_ID, &hw_id), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hw_id, static_cast<uint32_t>(queue->id));
  uint32_t first_hw_id = 0;
  ASSERT_EQ(hsa_amd_queue_get_info(first, HSA_QUEUE_INFO_HW_ID, &first_hw_id), HSA_STATUS_SUCCESS);
  EXPECT_NE(first_hw_id, hw_id);

  for (hsa_queue_info_attribute_t version :
       {HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_DISPATCH_PKT_VERSION_MAJOR,
        HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_DISPATCH_PKT_VERSION_MINOR,
        HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_BARRIER_PKT_VERSION_MAJOR,
        HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_BARRIER_PKT_VERSION_MINOR}) {
    SCOPED_TRACE(static_cast<int>(version));
    uint8_t v = 0;
    ASSERT_EQ(hsa_amd_queue_get_info(queue, version, &v), HSA_STATUS_SUCCESS);
    EXPECT_EQ(v, 0xFF);  // no metadata-prefetch ring on these GPUs
  }
  uint64_t ring = 0x5151;
  ASSERT_EQ(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_RING_BUFFER, &ring),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(ring, 0u);

  uint8_t properties[8] = {0x51, 0x51, 0x51, 0x51, 0x51, 0x51, 0x51, 0x51};
  EXPECT_EQ(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_PROPERTIES, properties),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(properties[0], 0x51);
  EXPECT_EQ(hsa_amd_queue_get_info(queue, static_cast<hsa_queue_info_attribute_t>(77), &ring),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(hsa_queue_destroy(first), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
}

TEST_F(QueueExtTest, GetInfoRejectsBadQueuesAndPointers) {
  hsa_agent_t agent{0x5151};
  hsa_queue_t fake{};
  EXPECT_EQ(hsa_amd_queue_get_info(&fake, HSA_AMD_QUEUE_INFO_AGENT, &agent), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_amd_queue_get_info(nullptr, HSA_AMD_QUEUE_INFO_AGENT, &agent), HSA_STATUS_ERROR_INVALID_QUEUE);
  hsa_queue_t* queue = MakeQueue(gpu());
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, &agent), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(agent.handle, 0x5151u);
}

}  // namespace
