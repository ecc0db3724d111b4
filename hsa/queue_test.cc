// The hsa_queue_* C API as ROCr's clients use it: creation limits and errors, the index operations in every
// memory-order spelling, and barrier-AND / barrier-OR packets written by user code into the ring and
// announced through the doorbell signal, which the simulated compute CP executes and completes.
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/time/time.h"
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

// What a queue's error callback saw. Thread-safe through `called`.
struct ErrorReport {
  hipmem_testing::Notification called;
  hsa_status_t status = HSA_STATUS_SUCCESS;
  hsa_queue_t* queue = nullptr;
  int calls = 0;
};

void OnQueueError(hsa_status_t status, hsa_queue_t* queue, void* data) {
  auto* report = static_cast<ErrorReport*>(data);
  ++report->calls;
  report->status = status;
  report->queue = queue;
  report->called.Notify();
}

hsa_status_t FirstPool(hsa_amd_memory_pool_t pool, void* data) {
  *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
  return HSA_STATUS_INFO_BREAK;
}

// Publishes a barrier packet the way ROCr's clients do: body first, then the header with a release store.
void SubmitBarrier(hsa_queue_t* queue, hsa_packet_type_t type, const std::vector<hsa_signal_t>& deps,
                   hsa_signal_t completion) {
  const uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
  ASSERT_LT(index - hsa_queue_load_read_index_scacquire(queue), queue->size);
  auto* slot = static_cast<hsa_barrier_and_packet_t*>(queue->base_address) + (index % queue->size);
  hsa_barrier_and_packet_t packet{};
  for (size_t i = 0; i < deps.size(); ++i) packet.dep_signal[i] = deps[i];
  packet.completion_signal = completion;
  std::memcpy(reinterpret_cast<char*>(slot) + 4, reinterpret_cast<const char*>(&packet) + 4, sizeof(packet) - 4);
  const uint16_t header = static_cast<uint16_t>((type << HSA_PACKET_HEADER_TYPE) |
                                                (1 << HSA_PACKET_HEADER_BARRIER) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                                (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), uint32_t{header}, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
}

class QueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(Collect, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_FALSE(agents_.gpus.empty());
    ASSERT_FALSE(agents_.cpus.empty());
    ASSERT_EQ(hsa_agent_get_info(gpu(), HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_size_), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_agent_get_info(gpu(), HSA_AGENT_INFO_QUEUE_MIN_SIZE, &min_size_), HSA_STATUS_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  hsa_agent_t gpu() const { return agents_.gpus.front(); }

  hsa_queue_t* MakeQueue(uint32_t size = 64) {
    hsa_queue_t* queue = nullptr;
    EXPECT_EQ(hsa_queue_create(gpu(), size, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue),
              HSA_STATUS_SUCCESS);
    return queue;
  }

  hsa_signal_t MakeSignal(hsa_signal_value_t value) {
    hsa_signal_t s{};
    EXPECT_EQ(hsa_signal_create(value, 0, nullptr, &s), HSA_STATUS_SUCCESS);
    return s;
  }

  Agents agents_;
  uint32_t max_size_ = 0;
  uint32_t min_size_ = 0;
};

TEST(QueueNoRuntimeTest, EveryCallNeedsInit) {
  hsa_queue_t* queue = nullptr;
  EXPECT_EQ(hsa_queue_create(hsa_agent_t{1}, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &queue),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(queue, nullptr);
  hsa_queue_t fake{};
  EXPECT_EQ(hsa_queue_destroy(&fake), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_queue_inactivate(&fake), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_F(QueueTest, CreateDescribesTheQueue) {
  hsa_queue_t* queue = MakeQueue(256);
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->type, HSA_QUEUE_TYPE_MULTI);
  EXPECT_EQ(queue->size, 256u);
  EXPECT_NE(queue->base_address, nullptr);
  EXPECT_NE(queue->doorbell_signal.handle, 0u);
  EXPECT_TRUE(queue->features & HSA_QUEUE_FEATURE_KERNEL_DISPATCH);
  // The ring starts with every slot INVALID, so the CP cannot run stale bytes.
  const auto* slots = static_cast<const uint16_t*>(queue->base_address);
  for (uint32_t i = 0; i < queue->size; ++i) {
    ASSERT_EQ(slots[i * 32] & 0xff, HSA_PACKET_TYPE_INVALID) << "slot " << i;
  }
  EXPECT_EQ(hsa_queue_load_read_index_relaxed(queue), 0u);
  EXPECT_EQ(hsa_queue_load_write_index_relaxed(queue), 0u);

  hsa_queue_t* second = MakeQueue(64);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second->id, queue->id);
  EXPECT_NE(second->doorbell_signal.handle, queue->doorbell_signal.handle);
  EXPECT_EQ(hsa_queue_destroy(second), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, ASizeBelowTheMinimumIsRaisedToIt) {
  ASSERT_GT(min_size_, 1u);
  hsa_queue_t* queue = MakeQueue(min_size_ / 2);
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->size, min_size_);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, TheLargestSizeWorks) {
  hsa_queue_t* queue = MakeQueue(max_size_);
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->size, max_size_);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, CreateRejectsBadRequests) {
  hsa_queue_t* queue = nullptr;
  auto create = [&](hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type = HSA_QUEUE_TYPE_MULTI) {
    return hsa_queue_create(agent, size, type, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue);
  };
  EXPECT_EQ(create(gpu(), 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(gpu(), 100), HSA_STATUS_ERROR_INVALID_ARGUMENT);  // not a power of two
  EXPECT_EQ(create(gpu(), max_size_ * 2), HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  EXPECT_EQ(create(gpu(), 64, 7), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(create(hsa_agent_t{0xdead}, 64), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(create(agents_.cpus.front(), 64), HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  EXPECT_EQ(queue, nullptr);
  EXPECT_EQ(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_F(QueueTest, DestroyAndInactivateRejectForeignQueues) {
  hsa_queue_t fake{};
  EXPECT_EQ(hsa_queue_destroy(&fake), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_queue_inactivate(&fake), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_queue_destroy(nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_queue_t* queue = MakeQueue();
  ASSERT_NE(queue, nullptr);
  ASSERT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_ERROR_INVALID_QUEUE);  // destroyed already
}

TEST_F(QueueTest, WriteIndexOperationsInEveryOrder) {
  hsa_queue_t* q = MakeQueue();
  ASSERT_NE(q, nullptr);
  using Add = uint64_t (*)(const hsa_queue_t*, uint64_t);
  uint64_t expected = 0;
  for (Add add : {hsa_queue_add_write_index_relaxed, hsa_queue_add_write_index_scacquire,
                  hsa_queue_add_write_index_screlease, hsa_queue_add_write_index_scacq_screl,
                  hsa_queue_add_write_index_acquire, hsa_queue_add_write_index_release,
                  hsa_queue_add_write_index_acq_rel}) {
    EXPECT_EQ(add(q, 3), expected);  // the index before
    expected += 3;
  }
  EXPECT_EQ(hsa_queue_load_write_index_scacquire(q), expected);
  EXPECT_EQ(hsa_queue_load_write_index_acquire(q), expected);
  using Cas = uint64_t (*)(const hsa_queue_t*, uint64_t, uint64_t);
  for (Cas cas : {hsa_queue_cas_write_index_relaxed, hsa_queue_cas_write_index_scacquire,
                  hsa_queue_cas_write_index_screlease, hsa_queue_cas_write_index_scacq_screl,
                  hsa_queue_cas_write_index_acquire, hsa_queue_cas_write_index_release,
                  hsa_queue_cas_write_index_acq_rel}) {
    EXPECT_EQ(cas(q, expected + 100, 1), expected);  // mismatch: unchanged, returns the current index
    EXPECT_EQ(hsa_queue_load_write_index_relaxed(q), expected);
    EXPECT_EQ(cas(q, expected, expected + 1), expected);  // match: stored
    ++expected;
    EXPECT_EQ(hsa_queue_load_write_index_relaxed(q), expected);
  }
  using Store = void (*)(const hsa_queue_t*, uint64_t);
  uint64_t value = 1000;
  for (Store store : {hsa_queue_store_write_index_relaxed, hsa_queue_store_write_index_screlease,
                      hsa_queue_store_write_index_release}) {
    store(q, value);
    EXPECT_EQ(hsa_queue_load_write_index_relaxed(q), value);
    ++value;
  }
  // No doorbell was rung, so the CP read nothing: the read index is untouched.
  EXPECT_EQ(hsa_queue_load_read_index_relaxed(q), 0u);
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, ReadIndexStoresAreSeenByLoads) {
  hsa_queue_t* q = MakeQueue();
  ASSERT_NE(q, nullptr);
  // An inactive queue's read index belongs to the application (ROCr's clients reset it this way).
  ASSERT_EQ(hsa_queue_inactivate(q), HSA_STATUS_SUCCESS);
  using Store = void (*)(const hsa_queue_t*, uint64_t);
  uint64_t value = 7;
  for (Store store : {hsa_queue_store_read_index_relaxed, hsa_queue_store_read_index_screlease,
                      hsa_queue_store_read_index_release}) {
    store(q, value);
    EXPECT_EQ(hsa_queue_load_read_index_relaxed(q), value);
    EXPECT_EQ(hsa_queue_load_read_index_scacquire(q), value);
    EXPECT_EQ(hsa_queue_load_read_index_acquire(q), value);
    ++value;
  }
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, BarrierAndWaitsForEveryDependency) {
  hsa_queue_t* q = MakeQueue();
  ASSERT_NE(q, nullptr);
  hsa_signal_t a = MakeSignal(1), b = MakeSignal(1), done = MakeSignal(1);
  SubmitBarrier(q, HSA_PACKET_TYPE_BARRIER_AND, {a, b}, done);
  hsa_signal_store_screlease(a, 0);
  // One dependency is still 1: the barrier must not complete.
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, kSecond / 20, HSA_WAIT_STATE_BLOCKED), 1);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(q), 0u);
  hsa_signal_store_screlease(b, 0);
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(q), 1u);
  // A second packet on the same queue runs too (the ring slot was handed back).
  hsa_signal_store_screlease(done, 1);
  SubmitBarrier(q, HSA_PACKET_TYPE_BARRIER_AND, {}, done);
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(q), 2u);
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  for (hsa_signal_t s : {a, b, done}) EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, BarrierOrWaitsForAnyDependency) {
  hsa_queue_t* q = MakeQueue();
  ASSERT_NE(q, nullptr);
  hsa_signal_t a = MakeSignal(1), b = MakeSignal(1), done = MakeSignal(1);
  SubmitBarrier(q, HSA_PACKET_TYPE_BARRIER_OR, {a, b}, done);
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, kSecond / 20, HSA_WAIT_STATE_BLOCKED), 1);
  hsa_signal_store_screlease(b, 0);  // one is enough
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  EXPECT_EQ(hsa_signal_load_relaxed(a), 1);
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  for (hsa_signal_t s : {a, b, done}) EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, AnInactiveQueueRunsNothing) {
  hsa_queue_t* q = MakeQueue();
  ASSERT_NE(q, nullptr);
  ASSERT_EQ(hsa_queue_inactivate(q), HSA_STATUS_SUCCESS);
  hsa_signal_t done = MakeSignal(1);
  SubmitBarrier(q, HSA_PACKET_TYPE_BARRIER_AND, {}, done);
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, kSecond / 20, HSA_WAIT_STATE_BLOCKED), 1);
  EXPECT_EQ(hsa_queue_inactivate(q), HSA_STATUS_SUCCESS);  // again: harmless
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
}

// A dispatch whose kernel object is not one the CP knows halts the queue; the CP reports it through the
// amd_queue_t's queue_inactive_signal and the runtime calls the queue's error callback once with
// HSA_STATUS_ERROR_INVALID_CODE_OBJECT (ROCr's code 8). The completion signal is never decremented.
TEST_F(QueueTest, AnUnknownKernelObjectReachesTheErrorCallback) {
  ErrorReport report;
  hsa_queue_t* q = nullptr;
  ASSERT_EQ(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_MULTI, OnQueueError, &report, UINT32_MAX, UINT32_MAX, &q),
            HSA_STATUS_SUCCESS);
  hsa_amd_memory_pool_t pool{};
  ASSERT_EQ(hsa_amd_agent_iterate_memory_pools(agents_.cpus.front(), FirstPool, &pool), HSA_STATUS_INFO_BREAK);
  void* garbage = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(pool, 4096, 0, &garbage), HSA_STATUS_SUCCESS);
  std::memset(garbage, 0xab, 4096);  // no kernel descriptor: wrong magic
  hsa_signal_t done = MakeSignal(1);

  const uint64_t index = hsa_queue_add_write_index_screlease(q, 1);
  auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (index % q->size);
  hsa_kernel_dispatch_packet_t packet{};
  packet.workgroup_size_x = packet.workgroup_size_y = packet.workgroup_size_z = 1;
  packet.grid_size_x = packet.grid_size_y = packet.grid_size_z = 1;
  packet.workgroup_size_x = 64;
  packet.grid_size_x = 64;
  packet.kernel_object = reinterpret_cast<uint64_t>(garbage);
  packet.kernarg_address = static_cast<char*>(garbage) + 2048;
  packet.completion_signal = done;
  std::memcpy(reinterpret_cast<char*>(slot) + 4, reinterpret_cast<const char*>(&packet) + 4, sizeof(packet) - 4);
  const uint32_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  const uint32_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header | (setup << 16), __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, static_cast<hsa_signal_value_t>(index));

  ASSERT_TRUE(report.called.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(report.status, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(report.queue, q);
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(q), 0u);  // halted on the packet
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(report.calls, 1);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_memory_pool_free(garbage), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, AnUnsupportedPacketTypeReachesTheErrorCallback) {
  ErrorReport report;
  hsa_queue_t* q = nullptr;
  ASSERT_EQ(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_MULTI, OnQueueError, &report, UINT32_MAX, UINT32_MAX, &q),
            HSA_STATUS_SUCCESS);
  hsa_signal_t done = MakeSignal(1);
  SubmitBarrier(q, HSA_PACKET_TYPE_AGENT_DISPATCH, {}, done);  // the GPU's CP runs no agent dispatches
  ASSERT_TRUE(report.called.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(report.status, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1);
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, CuMaskRoundTripsAndTheQueueStillRuns) {
  uint32_t cus = 0;
  ASSERT_EQ(hsa_agent_get_info(gpu(), static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &cus),
            HSA_STATUS_SUCCESS);
  ASSERT_GT(cus, 1u);
  hsa_queue_t* q = MakeQueue();
  ASSERT_NE(q, nullptr);
  const uint32_t words = (cus + 31) / 32 + 1;  // one word more than the GPU needs: it reads back 0
  std::vector<uint32_t> mask(words, 0xdeadbeef);
  // A new queue may use every CU.
  ASSERT_EQ(hsa_amd_queue_cu_get_mask(q, words * 32, mask.data()), HSA_STATUS_SUCCESS);
  uint32_t set = 0;
  for (uint32_t w : mask) set += static_cast<uint32_t>(__builtin_popcount(w));
  EXPECT_EQ(set, cus);
  EXPECT_EQ(mask.back(), 0u);

  const uint32_t odd[1] = {0x3};  // CUs 0 and 1 (one WGP on gfx10+, whose KFD refuses half a pair)
  ASSERT_EQ(hsa_amd_queue_cu_set_mask(q, 32, odd), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_queue_cu_get_mask(q, words * 32, mask.data()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(mask[0], 0x3u);
  for (uint32_t i = 1; i < words; ++i) EXPECT_EQ(mask[i], 0u) << "word " << i;

  const uint32_t none[1] = {0};
  EXPECT_EQ(hsa_amd_queue_cu_set_mask(q, 32, none), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_queue_cu_set_mask(q, 20, odd), HSA_STATUS_ERROR_INVALID_ARGUMENT);  // not whole words
  EXPECT_EQ(hsa_amd_queue_cu_set_mask(q, 32, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_queue_cu_get_mask(q, 0, mask.data()), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_queue_t fake{};
  EXPECT_EQ(hsa_amd_queue_cu_set_mask(&fake, 32, odd), HSA_STATUS_ERROR_INVALID_QUEUE);

  hsa_signal_t done = MakeSignal(1);
  SubmitBarrier(q, HSA_PACKET_TYPE_BARRIER_AND, {}, done);
  EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
}

TEST_F(QueueTest, SetPriorityKeepsTheQueueRunning) {
  hsa_queue_t* q = MakeQueue();
  ASSERT_NE(q, nullptr);
  hsa_signal_t done = MakeSignal(1);
  for (hsa_amd_queue_priority_t p : {HSA_AMD_QUEUE_PRIORITY_HIGH, HSA_AMD_QUEUE_PRIORITY_LOW,
                                     HSA_AMD_QUEUE_PRIORITY_NORMAL}) {
    SCOPED_TRACE(p);
    ASSERT_EQ(hsa_amd_queue_set_priority(q, p), HSA_STATUS_SUCCESS);
    hsa_signal_store_screlease(done, 1);
    SubmitBarrier(q, HSA_PACKET_TYPE_BARRIER_AND, {}, done);
    EXPECT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10 * kSecond, HSA_WAIT_STATE_BLOCKED), 0);
  }
  EXPECT_EQ(hsa_amd_queue_set_priority(q, static_cast<hsa_amd_queue_priority_t>(9)), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(hsa_queue_inactivate(q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_queue_set_priority(q, HSA_AMD_QUEUE_PRIORITY_HIGH), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
}

// ROCr's clients commonly destroy the failed queue from its error callback.
void DestroyOnError(hsa_status_t status, hsa_queue_t* queue, void* data) {
  auto* report = static_cast<ErrorReport*>(data);
  report->status = hsa_queue_destroy(queue);
  (void)status;
  report->called.Notify();
}

TEST_F(QueueTest, TheErrorCallbackMayDestroyItsQueue) {
  ErrorReport report;
  hsa_queue_t* q = nullptr;
  ASSERT_EQ(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_MULTI, DestroyOnError, &report, UINT32_MAX, UINT32_MAX, &q),
            HSA_STATUS_SUCCESS);
  SubmitBarrier(q, HSA_PACKET_TYPE_AGENT_DISPATCH, {}, hsa_signal_t{0});
  ASSERT_TRUE(report.called.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(report.status, HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(q), HSA_STATUS_ERROR_INVALID_QUEUE);  // gone already
}

TEST_F(QueueTest, ShutDownDestroysQueuesLeftBehind) {
  ASSERT_NE(MakeQueue(), nullptr);
  ASSERT_NE(MakeQueue(), nullptr);
  // TearDown's hsa_shut_down must free them (asan/lsan would report the ring and the KFD queue otherwise).
}

}  // namespace
