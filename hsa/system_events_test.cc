// hsa_amd_register_system_event_handler end to end: an AQL dispatch that writes through an unmapped GPU address
// makes the simulated CP take a VM fault, the simulated KFD sets the process's MEMORY events with the fault,
// and every registered handler hears HSA_AMD_GPU_MEMORY_FAULT_EVENT with the agent, the page and the reason.
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/time/time.h"
#include "gpu_abi/blit_kernels.h"
#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "testing/notification.h"
#include "hsa/system_events_kfd.h"
#include "thunk/events.h"

namespace {

namespace blit = ::hipmem::gpu_abi::blit;

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

hsa_status_t FirstPool(hsa_amd_memory_pool_t pool, void* data) {
  *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
  return HSA_STATUS_INFO_BREAK;
}

// What one handler saw. Thread-safe.
struct Seen {
  std::mutex mu;
  std::vector<hsa_amd_event_t> events;  // guarded by mu
  hipmem_testing::Notification called;
};

hsa_status_t OnEvent(const hsa_amd_event_t* event, void* data) {
  auto* seen = static_cast<Seen*>(data);
  {
    std::lock_guard<std::mutex> lock(seen->mu);
    seen->events.push_back(*event);
  }
  seen->called.Notify();
  return HSA_STATUS_SUCCESS;
}

// An address no allocation of the simulated GPU's VM covers.
constexpr uint64_t kUnmapped = 0x10000;

TEST(SystemEventsNoRuntimeTest, RegisteringNeedsInit) {
  Seen seen;
  EXPECT_EQ(hsa_amd_register_system_event_handler(OnEvent, &seen), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

class SystemEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(Collect, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_FALSE(agents_.gpus.empty());
    ASSERT_FALSE(agents_.cpus.empty());
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  hsa_agent_t gpu() const { return agents_.gpus.back(); }

  // Submits a dword fill of `bytes` at `target` on a fresh queue of gpu(); returns the queue (the fill faults).
  hsa_queue_t* SubmitFill(uint64_t target, uint64_t bytes) {
    hsa_queue_t* queue = nullptr;
    EXPECT_EQ(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue),
              HSA_STATUS_SUCCESS);
    if (queue == nullptr) return nullptr;
    hsa_amd_memory_pool_t pool{};
    EXPECT_EQ(hsa_amd_agent_iterate_memory_pools(agents_.cpus.front(), FirstPool, &pool), HSA_STATUS_INFO_BREAK);
    EXPECT_EQ(hsa_amd_memory_pool_allocate(pool, 4096, 0, &block_), HSA_STATUS_SUCCESS);
    auto* bytes_ptr = static_cast<char*>(block_);
    const blit::KernelDescriptor descriptor = blit::MakeDescriptor(blit::KernelId::kFill);
    std::memcpy(bytes_ptr, &descriptor, sizeof(descriptor));
    const blit::FillArgs args = blit::MakeFillArgs(target, 0xdeadbeefu, bytes);
    std::memcpy(bytes_ptr + 2048, &args, sizeof(args));
    const auto packet = blit::MakeDispatch(reinterpret_cast<uint64_t>(bytes_ptr),
                                           reinterpret_cast<uint64_t>(bytes_ptr + 2048), bytes);
    const uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
    auto* slot = static_cast<char*>(queue->base_address) + (index % queue->size) * 64;
    std::memcpy(slot + 4, reinterpret_cast<const char*>(&packet) + 4, sizeof(packet) - 4);
    uint32_t header_and_setup = 0;
    std::memcpy(&header_and_setup, &packet, sizeof(header_and_setup));
    __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header_and_setup, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
    return queue;
  }

  void Cleanup(hsa_queue_t* queue) {
    EXPECT_EQ(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_amd_memory_pool_free(block_), HSA_STATUS_SUCCESS);
  }

  Agents agents_;
  void* block_ = nullptr;
};

TEST_F(SystemEventsTest, AVmFaultOnAnAqlQueueReachesEveryHandler) {
  Seen first;
  Seen second;
  ASSERT_EQ(hsa_amd_register_system_event_handler(OnEvent, &first), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_register_system_event_handler(OnEvent, &second), HSA_STATUS_SUCCESS);
  hsa_queue_t* queue = SubmitFill(kUnmapped + 0x234, 64);
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(first.called.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_TRUE(second.called.WaitForNotificationWithTimeout(absl::Seconds(10)));
  for (Seen* seen : {&first, &second}) {
    std::lock_guard<std::mutex> lock(seen->mu);
    ASSERT_EQ(seen->events.size(), 1u);
    const hsa_amd_event_t& event = seen->events[0];
    EXPECT_EQ(event.event_type, HSA_AMD_GPU_MEMORY_FAULT_EVENT);
    EXPECT_EQ(event.memory_fault.agent.handle, gpu().handle);
    EXPECT_EQ(event.memory_fault.virtual_address, kUnmapped);  // the faulting page, as the kernel reports it
    EXPECT_EQ(event.memory_fault.fault_reason_mask, static_cast<uint32_t>(HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT));
  }
  Cleanup(queue);
}

TEST_F(SystemEventsTest, EachFaultIsReportedOnceWithItsOwnPage) {
  Seen seen;
  ASSERT_EQ(hsa_amd_register_system_event_handler(OnEvent, &seen), HSA_STATUS_SUCCESS);
  for (const uint64_t page : {kUnmapped + 0x1000, kUnmapped + 0x3000}) {
    SCOPED_TRACE(page);
    const size_t before = [&] {
      std::lock_guard<std::mutex> lock(seen.mu);
      return seen.events.size();
    }();
    hsa_queue_t* queue = SubmitFill(page + 8, 4);
    ASSERT_NE(queue, nullptr);
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    size_t now = before;
    while (now == before && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(1));
      std::lock_guard<std::mutex> lock(seen.mu);
      now = seen.events.size();
    }
    {
      std::lock_guard<std::mutex> lock(seen.mu);
      ASSERT_EQ(seen.events.size(), before + 1);
      EXPECT_EQ(seen.events.back().memory_fault.virtual_address, page);
    }
    Cleanup(queue);
  }
  absl::SleepFor(absl::Milliseconds(20));  // no late duplicate
  std::lock_guard<std::mutex> lock(seen.mu);
  EXPECT_EQ(seen.events.size(), 2u);
}

TEST_F(SystemEventsTest, RegisteringRejectsANullCallback) {
  EXPECT_EQ(hsa_amd_register_system_event_handler(nullptr, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST(FaultReasonMaskTest, MapsTheKernelsBitsAsRocr) {
  struct Row {
    hipmem::thunk::MemoryAccessFault fault;
    uint32_t mask;
  };
  const hipmem::thunk::NodeId node(1);
  const hipmem::DeviceAddress va(0x1000);
  const Row rows[] = {
      {{node, va, true, false, false, false, 0}, HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT},
      {{node, va, false, true, false, false, 0}, HSA_AMD_MEMORY_FAULT_READ_ONLY},
      {{node, va, false, false, true, false, 0}, HSA_AMD_MEMORY_FAULT_NX},
      {{node, va, false, false, false, true, 0}, HSA_AMD_MEMORY_FAULT_IMPRECISE},
      {{node, va, false, false, false, false, 1}, HSA_AMD_MEMORY_FAULT_SRAMECC},
      {{node, va, false, false, false, false, 2}, HSA_AMD_MEMORY_FAULT_DRAMECC},
      {{node, va, false, false, false, false, 3}, static_cast<uint32_t>(HSA_AMD_MEMORY_FAULT_HANG)},
      {{node, va, true, true, false, false, 0},
       HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT | HSA_AMD_MEMORY_FAULT_READ_ONLY},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.mask);
    EXPECT_EQ(hipmem::hsa::FaultReasonMask(row.fault), row.mask);
  }
}

}  // namespace
