// The AMD queue extensions as ROCr's clients use them: hsa_amd_queue_get_info for every attribute
// hsa_ext_amd.h declares, and dispatch profiling (hsa_amd_profiling_set_profiler_enabled,
// hsa_amd_profiling_get_dispatch_time) with packets run by the simulated compute CP.
#include <cstdint>
#include <atomic>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/time/time.h"
#include "gpu_abi/blit_kernels.h"
#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "testing/notification.h"

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

uint64_t Now() {
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

void SubmitBarrier(hsa_queue_t* queue, hsa_signal_t completion) {
  hsa_barrier_and_packet_t packet{};
  packet.completion_signal = completion;
  Submit(queue, packet, HSA_PACKET_TYPE_BARRIER_AND);
}

hsa_status_t FirstPool(hsa_amd_memory_pool_t pool, void* data) {
  *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
  return HSA_STATUS_INFO_BREAK;
}

hsa_status_t FirstGlobalRegion(hsa_region_t region, void* data) {
  hsa_region_segment_t segment{};
  if (hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  if (segment != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  *static_cast<hsa_region_t*>(data) = region;
  return HSA_STATUS_INFO_BREAK;
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

// What a profiled packet's completion signal reports, converted to the system domain, lies inside the host's
// window around the submission, with end >= start. The conversion places each tick against a clock reading
// bracketed by two system-clock reads, so it is exact to half that bracket: kSlack allows for it.
constexpr uint64_t kSlack = 200'000;  // 200 us

TEST_F(QueueExtTest, AProfiledQueueTimesBarriersAndDispatches) {
  namespace blit = ::hipmem::gpu_abi::blit;
  hsa_queue_t* queue = MakeQueue(gpu());
  ASSERT_NE(queue, nullptr);
  ASSERT_EQ(hsa_amd_profiling_set_profiler_enabled(queue, 1), HSA_STATUS_SUCCESS);

  // A fill of the simulated GPU's built-in kernel: descriptor, kernargs and target in system memory.
  hsa_amd_memory_pool_t pool{};
  ASSERT_EQ(hsa_amd_agent_iterate_memory_pools(agents_.cpus.front(), FirstPool, &pool), HSA_STATUS_INFO_BREAK);
  void* block = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(pool, 1 << 20, 0, &block), HSA_STATUS_SUCCESS);
  auto* bytes = static_cast<char*>(block);
  const blit::KernelDescriptor descriptor = blit::MakeDescriptor(blit::KernelId::kFill);
  std::memcpy(bytes, &descriptor, sizeof(descriptor));
  constexpr uint64_t kFillBytes = 512 * 1024;
  char* target = bytes + 4096;
  const blit::FillArgs args = blit::MakeFillArgs(reinterpret_cast<uint64_t>(target), 0x5a5a5a5au, kFillBytes);
  std::memcpy(bytes + 2048, &args, sizeof(args));

  hsa_signal_t barrier_done = MakeSignal(1);
  hsa_signal_t dispatch_done = MakeSignal(1);
  const uint64_t before = Now();
  SubmitBarrier(queue, barrier_done);
  hsa_kernel_dispatch_packet_t dispatch{};
  const auto packet = blit::MakeDispatch(reinterpret_cast<uint64_t>(bytes), reinterpret_cast<uint64_t>(bytes + 2048),
                                         kFillBytes, dispatch_done.handle);
  static_assert(sizeof(packet) == sizeof(dispatch));
  std::memcpy(&dispatch, &packet, sizeof(dispatch));
  Submit(queue, dispatch, HSA_PACKET_TYPE_KERNEL_DISPATCH);
  ASSERT_EQ(hsa_signal_wait_scacquire(dispatch_done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  ASSERT_EQ(hsa_signal_wait_scacquire(barrier_done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  const uint64_t after = Now();
  EXPECT_EQ(static_cast<unsigned char>(target[kFillBytes - 1]), 0x5a);  // the dispatch really ran

  hsa_amd_profiling_dispatch_time_t barrier{};
  hsa_amd_profiling_dispatch_time_t fill{};
  ASSERT_EQ(hsa_amd_profiling_get_dispatch_time(gpu(), barrier_done, &barrier), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_profiling_get_dispatch_time(gpu(), dispatch_done, &fill), HSA_STATUS_SUCCESS);
  for (const hsa_amd_profiling_dispatch_time_t& t : {barrier, fill}) {
    EXPECT_GE(t.end, t.start);
    EXPECT_GE(t.start + kSlack, before);
    EXPECT_LE(t.end, after + kSlack);
  }
  // The barrier ran first, and the fill took measurable time (half a megabyte).
  EXPECT_LE(barrier.end, fill.start + kSlack);
  EXPECT_GT(fill.end, fill.start);

  // Profiling off: later packets leave their signals unstamped, which get_dispatch_time reports.
  ASSERT_EQ(hsa_amd_profiling_set_profiler_enabled(queue, 0), HSA_STATUS_SUCCESS);
  hsa_signal_t unprofiled = MakeSignal(1);
  SubmitBarrier(queue, unprofiled);
  ASSERT_EQ(hsa_signal_wait_scacquire(unprofiled, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED),
            0);
  hsa_amd_profiling_dispatch_time_t none{7, 7};
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(gpu(), unprofiled, &none), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(none.start, 7u);

  for (hsa_signal_t s : {barrier_done, dispatch_done, unprofiled}) EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_memory_pool_free(block), HSA_STATUS_SUCCESS);
}

TEST_F(QueueExtTest, AQueueWithoutProfilingGivesNoDispatchTime) {
  hsa_queue_t* queue = MakeQueue(gpu());
  ASSERT_NE(queue, nullptr);
  hsa_signal_t done = MakeSignal(1);
  SubmitBarrier(queue, done);
  ASSERT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  hsa_amd_profiling_dispatch_time_t time{};
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(gpu(), done, &time), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
}

TEST_F(QueueExtTest, ProfilingCallsRejectBadArguments) {
  hsa_queue_t fake{};
  EXPECT_EQ(hsa_amd_profiling_set_profiler_enabled(&fake, 1), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_amd_profiling_set_profiler_enabled(nullptr, 1), HSA_STATUS_ERROR_INVALID_QUEUE);
  hsa_signal_t signal = MakeSignal(0);
  hsa_amd_profiling_dispatch_time_t time{};
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(gpu(), signal, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(agents_.cpus.front(), signal, &time), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(hsa_agent_t{0xdead}, signal, &time), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(gpu(), hsa_signal_t{0x40}, &time), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_signal_destroy(signal), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_profiling_get_dispatch_time(gpu(), signal, &time), HSA_STATUS_ERROR_INVALID_SIGNAL);
}

// A software queue as the HSA spec's host-serviced queues are used: producers publish packets and store to the
// caller's doorbell signal; a consumer thread of the application sleeps on that signal, runs each packet (here:
// decrements the barrier's completion signal), hands the slot back and advances the read index. The ring
// wraps many times. No CP touches it: every completion comes from the consumer.
TEST_F(QueueExtTest, ASoftQueueIsDrainedByUserCode) {
  hsa_region_t region{};
  ASSERT_EQ(hsa_agent_iterate_regions(agents_.cpus.front(), FirstGlobalRegion, &region), HSA_STATUS_INFO_BREAK);
  hsa_signal_t doorbell = MakeSignal(-1);
  constexpr uint32_t kSize = 16;
  hsa_queue_t* queue = nullptr;
  ASSERT_EQ(hsa_soft_queue_create(region, kSize, HSA_QUEUE_TYPE_SINGLE, HSA_QUEUE_FEATURE_AGENT_DISPATCH, doorbell,
                                  &queue),
            HSA_STATUS_SUCCESS);
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->type, HSA_QUEUE_TYPE_SINGLE);
  EXPECT_EQ(queue->features, static_cast<uint32_t>(HSA_QUEUE_FEATURE_AGENT_DISPATCH));
  EXPECT_EQ(queue->size, kSize);
  EXPECT_EQ(queue->doorbell_signal.handle, doorbell.handle);
  ASSERT_NE(queue->base_address, nullptr);
  const auto* headers = static_cast<const uint16_t*>(queue->base_address);
  for (uint32_t i = 0; i < kSize; ++i) ASSERT_EQ(headers[i * 32] & 0xff, HSA_PACKET_TYPE_INVALID) << i;
  hsa_queue_t* gpu_queue = MakeQueue(gpu());
  ASSERT_NE(gpu_queue, nullptr);
  EXPECT_NE(gpu_queue->id, queue->id);

  // The queue extensions need a CP behind the queue.
  hsa_agent_t agent{};
  EXPECT_EQ(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, &agent), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_amd_profiling_set_profiler_enabled(queue, 1), HSA_STATUS_ERROR_INVALID_QUEUE);

  constexpr int kPackets = 200;
  hsa_signal_t done = MakeSignal(kPackets);
  std::atomic<int> consumed{0};
  std::thread consumer([&] {
    uint64_t read = 0;
    hsa_signal_value_t seen = -1;
    while (read < kPackets) {
      seen = hsa_signal_wait_scacquire(doorbell, HSA_SIGNAL_CONDITION_NE, seen, 10 * kSecond, HSA_WAIT_STATE_BLOCKED);
      const uint64_t end = hsa_queue_load_write_index_scacquire(queue);
      for (; read < end; ++read) {
        auto* slot = static_cast<hsa_barrier_and_packet_t*>(queue->base_address) + (read % queue->size);
        const uint32_t word = __atomic_load_n(reinterpret_cast<uint32_t*>(slot), __ATOMIC_ACQUIRE);
        if ((word & 0xff) == HSA_PACKET_TYPE_INVALID) break;  // reserved but not published yet
        if ((word & 0xff) == HSA_PACKET_TYPE_BARRIER_AND) {
          hsa_signal_subtract_screlease(slot->completion_signal, 1);
          consumed.fetch_add(1);
        }
        __atomic_store_n(reinterpret_cast<uint32_t*>(slot), uint32_t{HSA_PACKET_TYPE_INVALID}, __ATOMIC_RELEASE);
        hsa_queue_store_read_index_screlease(queue, read + 1);
      }
    }
  });
  for (int i = 0; i < kPackets; ++i) {
    // A producer waits for a free slot, as with any AQL queue.
    while (hsa_queue_load_write_index_relaxed(queue) - hsa_queue_load_read_index_scacquire(queue) >= kSize) {
      std::this_thread::yield();
    }
    SubmitBarrier(queue, done);
  }
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  consumer.join();
  EXPECT_EQ(consumed.load(), kPackets);
  EXPECT_EQ(hsa_signal_load_scacquire(done), 0);  // nothing but the consumer completed a packet
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(queue), uint64_t{kPackets});

  EXPECT_EQ(hsa_queue_inactivate(queue), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_queue_destroy(gpu_queue), HSA_STATUS_SUCCESS);
  for (hsa_signal_t sig : {doorbell, done}) EXPECT_EQ(hsa_signal_destroy(sig), HSA_STATUS_SUCCESS);
}

TEST_F(QueueExtTest, SoftQueueCreateRejectsBadArguments) {
  hsa_region_t region{};
  ASSERT_EQ(hsa_agent_iterate_regions(agents_.cpus.front(), FirstGlobalRegion, &region), HSA_STATUS_INFO_BREAK);
  hsa_signal_t doorbell = MakeSignal(0);
  hsa_queue_t* queue = nullptr;
  auto create = [&](hsa_region_t r, uint32_t size, hsa_queue_type32_t type, uint32_t features, hsa_signal_t d) {
    return hsa_soft_queue_create(r, size, type, features, d, &queue);
  };
  constexpr uint32_t kFeatures = HSA_QUEUE_FEATURE_AGENT_DISPATCH;
  EXPECT_EQ(create(region, 0, HSA_QUEUE_TYPE_MULTI, kFeatures, doorbell), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(region, 48, HSA_QUEUE_TYPE_MULTI, kFeatures, doorbell), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(region, 64, HSA_QUEUE_TYPE_COOPERATIVE, kFeatures, doorbell), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(region, 64, HSA_QUEUE_TYPE_MULTI, 0, doorbell), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(hsa_region_t{0}, 64, HSA_QUEUE_TYPE_MULTI, kFeatures, doorbell), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(region, 64, HSA_QUEUE_TYPE_MULTI, kFeatures, hsa_signal_t{0}), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(hsa_region_t{0xdead}, 64, HSA_QUEUE_TYPE_MULTI, kFeatures, doorbell),
            HSA_STATUS_ERROR_INVALID_REGION);
  EXPECT_EQ(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_MULTI, kFeatures, doorbell, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(queue, nullptr);
  ASSERT_EQ(hsa_signal_destroy(doorbell), HSA_STATUS_SUCCESS);
  EXPECT_EQ(create(region, 64, HSA_QUEUE_TYPE_MULTI, kFeatures, doorbell), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(queue, nullptr);
}

uint32_t InfoU32(hsa_queue_t* queue, hsa_queue_info_attribute_t attribute) {
  uint32_t value = 0;
  EXPECT_EQ(hsa_amd_queue_get_info(queue, attribute, &value), HSA_STATUS_SUCCESS);
  return value;
}

// Counted queues as ROCr's CountedQueuePoolManager hands them out: every acquire gets its own handle; up to
// GPU_MAX_HW_QUEUES (4) hardware queues per agent and priority are made, then the least-used one is shared.
// Handles on one hardware queue share its ring, doorbell and indices, and the CP runs what any of them submits.
TEST_F(QueueExtTest, CountedQueuesShareUpToFourHardwareQueuesPerPriority) {
  std::vector<hsa_queue_t*> handles;
  for (int i = 0; i < 6; ++i) {
    hsa_queue_t* q = nullptr;
    ASSERT_EQ(hsa_amd_counted_queue_acquire(gpu(), HSA_QUEUE_TYPE_MULTI, HSA_AMD_QUEUE_PRIORITY_NORMAL, nullptr,
                                            nullptr, 0, &q),
              HSA_STATUS_SUCCESS);
    ASSERT_NE(q, nullptr);
    for (hsa_queue_t* other : handles) ASSERT_NE(q, other);
    handles.push_back(q);
  }
  EXPECT_EQ(handles[0]->size, 16384u);  // HSA_COUNTED_QUEUE_SIZE's default
  std::vector<uint32_t> ids;
  for (hsa_queue_t* q : handles) ids.push_back(InfoU32(q, HSA_QUEUE_INFO_HW_ID));
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) EXPECT_NE(ids[i], ids[j]);
  }
  // All four had one user: the fifth and sixth go to the first two.
  EXPECT_EQ(ids[4], ids[0]);
  EXPECT_EQ(ids[5], ids[1]);
  EXPECT_EQ(handles[4]->base_address, handles[0]->base_address);
  EXPECT_EQ(handles[4]->doorbell_signal.handle, handles[0]->doorbell_signal.handle);
  EXPECT_EQ(InfoU32(handles[0], HSA_QUEUE_INFO_USE_COUNT), 2u);
  EXPECT_EQ(InfoU32(handles[4], HSA_QUEUE_INFO_USE_COUNT), 2u);
  EXPECT_EQ(InfoU32(handles[2], HSA_QUEUE_INFO_USE_COUNT), 1u);
  hsa_agent_t agent{};
  ASSERT_EQ(hsa_amd_queue_get_info(handles[3], HSA_AMD_QUEUE_INFO_AGENT, &agent), HSA_STATUS_SUCCESS);
  EXPECT_EQ(agent.handle, gpu().handle);

  // The indices are the hardware queue's: what one handle reserves the other sees, and the CP runs packets
  // submitted through either.
  hsa_signal_t done = MakeSignal(2);
  SubmitBarrier(handles[0], done);
  SubmitBarrier(handles[4], done);
  EXPECT_EQ(hsa_queue_load_write_index_scacquire(handles[4]), 2u);
  EXPECT_EQ(hsa_queue_load_write_index_scacquire(handles[0]), 2u);
  ASSERT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(handles[0]), 2u);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(handles[4]), 2u);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(handles[1]), 0u);  // another hardware queue

  // Another priority is another pool.
  hsa_queue_t* high = nullptr;
  ASSERT_EQ(hsa_amd_counted_queue_acquire(gpu(), HSA_QUEUE_TYPE_MULTI, HSA_AMD_QUEUE_PRIORITY_HIGH, nullptr, nullptr,
                                          0, &high),
            HSA_STATUS_SUCCESS);
  for (uint32_t id : ids) EXPECT_NE(InfoU32(high, HSA_QUEUE_INFO_HW_ID), id);

  // Releasing drops one use; a released handle is gone.
  ASSERT_EQ(hsa_amd_counted_queue_release(handles[4]), HSA_STATUS_SUCCESS);
  EXPECT_EQ(InfoU32(handles[0], HSA_QUEUE_INFO_USE_COUNT), 1u);
  uint32_t count = 0;
  EXPECT_EQ(hsa_amd_queue_get_info(handles[4], HSA_QUEUE_INFO_USE_COUNT, &count), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_amd_counted_queue_release(handles[4]), HSA_STATUS_ERROR_INVALID_QUEUE);
  // Uses are now 1, 2, 1, 1: the first least-used queue is the first one again.
  hsa_queue_t* again = nullptr;
  ASSERT_EQ(hsa_amd_counted_queue_acquire(gpu(), HSA_QUEUE_TYPE_MULTI, HSA_AMD_QUEUE_PRIORITY_NORMAL, nullptr, nullptr,
                                          0, &again),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(InfoU32(again, HSA_QUEUE_INFO_HW_ID), ids[0]);
  handles[4] = again;

  // Counted handles are released, not destroyed.
  EXPECT_EQ(hsa_queue_destroy(handles[0]), HSA_STATUS_ERROR_INVALID_QUEUE);
  for (hsa_queue_t* q : handles) EXPECT_EQ(hsa_amd_counted_queue_release(q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_counted_queue_release(high), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
}

TEST_F(QueueExtTest, CountedQueueCallsRejectBadArguments) {
  hsa_queue_t* q = nullptr;
  auto acquire = [&](hsa_agent_t agent, hsa_queue_type_t type, int priority) {
    return hsa_amd_counted_queue_acquire(agent, type, static_cast<hsa_amd_queue_priority_t>(priority), nullptr,
                                         nullptr, 0, &q);
  };
  EXPECT_EQ(acquire(gpu(), HSA_QUEUE_TYPE_SINGLE, HSA_AMD_QUEUE_PRIORITY_NORMAL),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  EXPECT_EQ(acquire(gpu(), HSA_QUEUE_TYPE_MULTI, 7), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(acquire(hsa_agent_t{0xdead}, HSA_QUEUE_TYPE_MULTI, HSA_AMD_QUEUE_PRIORITY_NORMAL),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(acquire(agents_.cpus.front(), HSA_QUEUE_TYPE_MULTI, HSA_AMD_QUEUE_PRIORITY_NORMAL),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  EXPECT_EQ(q, nullptr);
  EXPECT_EQ(hsa_amd_counted_queue_acquire(gpu(), HSA_QUEUE_TYPE_MULTI, HSA_AMD_QUEUE_PRIORITY_NORMAL, nullptr, nullptr,
                                          0, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_queue_t* plain = MakeQueue(gpu());
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(hsa_amd_counted_queue_release(plain), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_amd_counted_queue_release(nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_queue_destroy(plain), HSA_STATUS_SUCCESS);
}

// What a counted handle's error callback saw. Thread-safe through `called`.
struct ErrorReport {
  hipmem_testing::Notification called;
  hsa_status_t status = HSA_STATUS_SUCCESS;
  hsa_queue_t* queue = nullptr;
};

void OnQueueError(hsa_status_t status, hsa_queue_t* queue, void* data) {
  auto* report = static_cast<ErrorReport*>(data);
  report->status = status;
  report->queue = queue;
  report->called.Notify();
}

// A halt of the shared hardware queue reaches the callback of each handle on it, naming that handle.
TEST_F(QueueExtTest, ACountedQueueErrorReachesItsHandlesCallback) {
  ErrorReport report;
  hsa_queue_t* q = nullptr;
  ASSERT_EQ(hsa_amd_counted_queue_acquire(gpu(), HSA_QUEUE_TYPE_MULTI, HSA_AMD_QUEUE_PRIORITY_LOW, OnQueueError,
                                          &report, 0, &q),
            HSA_STATUS_SUCCESS);
  hsa_barrier_and_packet_t packet{};
  Submit(q, packet, HSA_PACKET_TYPE_AGENT_DISPATCH);  // the GPU's CP runs no agent dispatches
  ASSERT_TRUE(report.called.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(report.status, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  EXPECT_EQ(report.queue, q);
  EXPECT_EQ(hsa_amd_counted_queue_release(q), HSA_STATUS_SUCCESS);
}

}  // namespace
