// hsa_amd_memory_async_copy and friends through the C API, as a ROCr client (rocm_bandwidth_test, rocrtst's
// memory tests) calls them: pools, signals, copy chains, fill, engine queries and copy profiling. Built once
// per preset (see BUILD).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

constexpr uint64_t kForever = UINT64_MAX;

struct Agents {
  hsa_agent_t cpu{0};
  std::vector<hsa_agent_t> gpus;
};

hsa_status_t CollectAgent(hsa_agent_t agent, void* data) {
  auto* agents = static_cast<Agents*>(data);
  hsa_device_type_t type;
  if (hsa_status_t s = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type); s != HSA_STATUS_SUCCESS) return s;
  if (type == HSA_DEVICE_TYPE_GPU) agents->gpus.push_back(agent);
  if (type == HSA_DEVICE_TYPE_CPU && agents->cpu.handle == 0) agents->cpu = agent;
  return HSA_STATUS_SUCCESS;
}

// The first pool of an agent whose global flags include `flag`.
struct PoolSearch {
  uint32_t flag;
  hsa_amd_memory_pool_t pool{0};
};

hsa_status_t FindPool(hsa_amd_memory_pool_t pool, void* data) {
  auto* search = static_cast<PoolSearch*>(data);
  hsa_amd_segment_t segment;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
  if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  uint32_t flags = 0;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if ((flags & search->flag) != 0 && search->pool.handle == 0) search->pool = pool;
  return HSA_STATUS_SUCCESS;
}

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), seed);
  return v;
}

// HSA_ENABLE_SDMA=0 (the no_sdma build): every GPU copy runs on the blit kernel.
bool SdmaDisabled() {
  const char* v = std::getenv("HSA_ENABLE_SDMA");
  return v != nullptr && std::string(v) == "0";
}

uint64_t SystemTimestamp() {
  uint64_t t = 0;
  EXPECT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t), HSA_STATUS_SUCCESS);
  return t;
}

TEST(HsaCopyCApiBeforeInit, EveryCallIsNotInitialized) {
  char a[8] = {}, b[8] = {};
  const hsa_agent_t agent{1};
  uint32_t mask = 0x5151;
  uint64_t tick = 0x5151;
  hsa_amd_profiling_async_copy_time_t time{};
  EXPECT_EQ(hsa_amd_memory_async_copy(a, agent, b, agent, 8, 0, nullptr, hsa_signal_t{1}),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_memory_async_copy_on_engine(a, agent, b, agent, 8, 0, nullptr, hsa_signal_t{1},
                                                HSA_AMD_SDMA_ENGINE_0, false),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_memory_copy_engine_status(agent, agent, &mask), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_memory_get_preferred_copy_engine(agent, agent, &mask), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_memory_fill(a, 0, 2), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_profiling_async_copy_enable(true), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_profiling_get_async_copy_time(hsa_signal_t{1}, &time), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_profiling_convert_tick_to_system_domain(agent, 1, &tick), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(mask, 0x5151u);
  EXPECT_EQ(tick, 0x5151u);
}

class HsaCopyCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(CollectAgent, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_NE(agents_.cpu.handle, 0u);
    ASSERT_FALSE(agents_.gpus.empty());
  }
  void TearDown() override {
    for (hsa_signal_t s : signals_) EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
    for (void* p : allocations_) EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  }

  void* Allocate(hsa_agent_t agent, uint32_t flag, size_t size) {
    PoolSearch search{flag};
    EXPECT_EQ(hsa_amd_agent_iterate_memory_pools(agent, FindPool, &search), HSA_STATUS_SUCCESS);
    void* p = nullptr;
    EXPECT_EQ(hsa_amd_memory_pool_allocate(search.pool, size, 0, &p), HSA_STATUS_SUCCESS);
    if (p != nullptr) allocations_.push_back(p);
    return p;
  }
  void* Vram(hsa_agent_t gpu, size_t size) { return Allocate(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, size); }

  hsa_signal_t Signal(hsa_signal_value_t initial) {
    hsa_signal_t s{0};
    EXPECT_EQ(hsa_signal_create(initial, 0, nullptr, &s), HSA_STATUS_SUCCESS);
    signals_.push_back(s);
    return s;
  }

  hsa_signal_value_t Await(hsa_signal_t s) {
    return hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, kForever, HSA_WAIT_STATE_BLOCKED);
  }

  std::vector<uint8_t> ReadBack(const void* src, hsa_agent_t gpu, size_t size) {
    std::vector<uint8_t> out(size, 0xee);
    const hsa_signal_t done = Signal(1);
    EXPECT_EQ(hsa_amd_memory_async_copy(out.data(), agents_.cpu, src, gpu, size, 0, nullptr, done),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(Await(done), 0);
    return out;
  }

  Agents agents_;
  std::vector<hsa_signal_t> signals_;
  std::vector<void*> allocations_;
};

TEST_F(HsaCopyCApi, CopyChainThroughDependencySignals) {
  const hsa_agent_t gpu = agents_.gpus[0];
  const size_t size = (2 << 20) + 77;
  const std::vector<uint8_t> in = Pattern(size, 11);
  // Host staging buffers from the system pool, as rocm_bandwidth_test uses them.
  void* host_in = Allocate(agents_.cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, size);
  void* host_out = Allocate(agents_.cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, size);
  std::memcpy(host_in, in.data(), size);
  void* a = Vram(gpu, size);
  void* b = Vram(gpu, size);
  const hsa_signal_t gate = Signal(1), s1 = Signal(1), s2 = Signal(1), s3 = Signal(1);
  ASSERT_EQ(hsa_amd_memory_async_copy(a, gpu, host_in, agents_.cpu, size, 1, &gate, s1), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_async_copy(b, gpu, a, gpu, size, 1, &s1, s2), HSA_STATUS_SUCCESS);
  const hsa_signal_t last_deps[] = {s2, gate};
  ASSERT_EQ(hsa_amd_memory_async_copy(host_out, agents_.cpu, b, gpu, size, 2, last_deps, s3), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_load_scacquire(s3), 1);
  hsa_signal_store_screlease(gate, 0);
  EXPECT_EQ(Await(s3), 0);
  EXPECT_EQ(hsa_signal_load_scacquire(s1), 0);
  EXPECT_EQ(0, std::memcmp(host_out, in.data(), size));
}

// rocm_bandwidth_test's and CLR's pinned path: hsa_amd_memory_lock hands back the address the GPUs use for the
// pinned pages, and that agent pointer is what the client passes to the copy, in either direction.
TEST_F(HsaCopyCApi, CopiesThroughTheAgentPointerOfLockedMemory) {
  const hsa_agent_t gpu = agents_.gpus[0];
  const size_t size = (1 << 20) + 4096;
  std::vector<uint8_t> pageable = Pattern(size, 23);
  std::vector<uint8_t> back(size, 0);
  void* in_agent = nullptr;
  void* out_agent = nullptr;
  ASSERT_EQ(hsa_amd_memory_lock(pageable.data(), size, const_cast<hsa_agent_t*>(&gpu), 1, &in_agent),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_lock(back.data(), size, const_cast<hsa_agent_t*>(&gpu), 1, &out_agent),
            HSA_STATUS_SUCCESS);
  void* vram = Vram(gpu, size);
  const hsa_signal_t up = Signal(1), down = Signal(1);
  ASSERT_EQ(hsa_amd_memory_async_copy(vram, gpu, in_agent, agents_.cpu, size, 0, nullptr, up), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_async_copy(out_agent, agents_.cpu, vram, gpu, size, 1, &up, down), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(down), 0);
  EXPECT_EQ(back, pageable);
  // Past the locked range through its agent pointer: refused, nothing copied.
  const hsa_signal_t past = Signal(1);
  EXPECT_NE(hsa_amd_memory_async_copy(vram, gpu, static_cast<uint8_t*>(in_agent) + 4096, agents_.cpu, size, 0,
                                      nullptr, past),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_load_scacquire(past), 1);
  EXPECT_EQ(hsa_amd_memory_unlock(pageable.data()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_memory_unlock(back.data()), HSA_STATUS_SUCCESS);
}

TEST_F(HsaCopyCApi, BadArgumentsAreRefused) {
  const hsa_agent_t gpu = agents_.gpus[0];
  char host[64] = {};
  void* vram = Vram(gpu, 4096);
  const hsa_signal_t done = Signal(1);
  EXPECT_EQ(hsa_amd_memory_async_copy(vram, gpu, host, agents_.cpu, 64, 1, nullptr, done),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_async_copy(nullptr, gpu, host, agents_.cpu, 64, 0, nullptr, done),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_async_copy(vram, gpu, host, agents_.cpu, 64, 0, nullptr, hsa_signal_t{0x1234540}),
            HSA_STATUS_ERROR_INVALID_SIGNAL);
  const hsa_signal_t dead{0x1234540};
  EXPECT_EQ(hsa_amd_memory_async_copy(vram, gpu, host, agents_.cpu, 64, 1, &dead, done),
            HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_amd_memory_async_copy(vram, hsa_agent_t{42}, host, agents_.cpu, 64, 0, nullptr, done),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_memory_async_copy(static_cast<char*>(vram) + 4090, gpu, host, agents_.cpu, 64, 0, nullptr, done),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);  // kOutOfRange: past the allocation
  EXPECT_EQ(hsa_amd_memory_async_copy_on_engine(vram, gpu, host, agents_.cpu, 64, 0, nullptr, done,
                                                static_cast<hsa_amd_sdma_engine_id_t>(0x3), false),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1);  // nothing was queued
}

TEST_F(HsaCopyCApi, CopyOnEngineAndEngineQueries) {
  const hsa_agent_t gpu = agents_.gpus[0];
  const std::vector<uint8_t> in = Pattern(8192, 3);
  void* vram = Vram(gpu, 8192);
  uint32_t mask = 0;
  ASSERT_EQ(hsa_amd_memory_copy_engine_status(gpu, agents_.cpu, &mask), HSA_STATUS_SUCCESS);
  EXPECT_EQ(mask, static_cast<uint32_t>(HSA_AMD_SDMA_ENGINE_0 | HSA_AMD_SDMA_ENGINE_1));
  EXPECT_EQ(hsa_amd_memory_copy_engine_status(gpu, gpu, &mask), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_memory_copy_engine_status(gpu, agents_.cpu, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(hsa_amd_memory_get_preferred_copy_engine(gpu, agents_.cpu, &mask), HSA_STATUS_SUCCESS);
  // The host-to-device engine; none with SDMA off.
  EXPECT_EQ(mask, SdmaDisabled() ? 0u : static_cast<uint32_t>(HSA_AMD_SDMA_ENGINE_0));

  const hsa_signal_t done = Signal(1);
  ASSERT_EQ(hsa_amd_memory_async_copy_on_engine(vram, gpu, in.data(), agents_.cpu, in.size(), 0, nullptr, done,
                                                HSA_AMD_SDMA_ENGINE_1, false),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(done), 0);
  EXPECT_EQ(ReadBack(vram, gpu, in.size()), in);
}

TEST_F(HsaCopyCApi, FillOnTheEngines) {
  const hsa_agent_t gpu = agents_.gpus[0];
  void* vram = Vram(gpu, 1 << 20);
  ASSERT_EQ(hsa_amd_memory_fill(vram, 0x01020304, (1 << 20) / 4), HSA_STATUS_SUCCESS);
  const std::vector<uint8_t> got = ReadBack(vram, gpu, 1 << 20);
  for (size_t i = 0; i < got.size(); i += 4) {
    uint32_t word;
    std::memcpy(&word, got.data() + i, 4);
    ASSERT_EQ(word, 0x01020304u) << "at byte " << i;
  }
  EXPECT_EQ(hsa_amd_memory_fill(static_cast<char*>(vram) + 1, 0, 4), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_fill(vram, 0, (1 << 20) / 4 + 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint32_t stack[4];
  EXPECT_EQ(hsa_amd_memory_fill(stack, 0, 4), HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

TEST_F(HsaCopyCApi, ProfiledCopyTimes) {
  const hsa_agent_t gpu = agents_.gpus[0];
  const size_t size = 4 << 20;
  const std::vector<uint8_t> in = Pattern(size, 5);
  void* vram = Vram(gpu, size);
  const hsa_signal_t done = Signal(1);
  hsa_amd_profiling_async_copy_time_t time{};
  ASSERT_EQ(hsa_amd_profiling_async_copy_enable(true), HSA_STATUS_SUCCESS);
  const uint64_t before = SystemTimestamp();
  ASSERT_EQ(hsa_amd_memory_async_copy(vram, gpu, in.data(), agents_.cpu, size, 0, nullptr, done), HSA_STATUS_SUCCESS);
  ASSERT_EQ(Await(done), 0);
  const uint64_t after = SystemTimestamp();
  if (SdmaDisabled()) {
    // Copy times come from SDMA TIMESTAMP packets; the simulated CP stamps no blit-kernel dispatch.
    EXPECT_EQ(hsa_amd_profiling_get_async_copy_time(done, &time), HSA_STATUS_ERROR_INVALID_SIGNAL);
    return;
  }
  ASSERT_EQ(hsa_amd_profiling_get_async_copy_time(done, &time), HSA_STATUS_SUCCESS);
  constexpr uint64_t kSlack = 50'000;  // ns: the tick conversion brackets an ioctl
  EXPECT_GE(time.start + kSlack, before);
  EXPECT_LT(time.start, time.end);
  EXPECT_LE(time.end, after + kSlack);
  EXPECT_EQ(hsa_amd_profiling_get_async_copy_time(done, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_profiling_async_copy_enable(false), HSA_STATUS_SUCCESS);

  // A tick of the GPU's clock converts to about now.
  uint64_t ns = 0;
  const hsa_amd_profiling_async_copy_time_t copy = time;
  EXPECT_EQ(hsa_amd_profiling_convert_tick_to_system_domain(agents_.cpu, 1, &ns), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_profiling_convert_tick_to_system_domain(gpu, 1, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_GT(copy.end, 0u);
}

TEST_F(HsaCopyCApi, PeerCopyBetweenGpus) {
  if (agents_.gpus.size() < 2) GTEST_SKIP() << "one GPU in this preset";
  const hsa_agent_t g0 = agents_.gpus[0], g1 = agents_.gpus[1];
  const size_t size = 3 << 20;
  const std::vector<uint8_t> in = Pattern(size, 17);
  void* src = Vram(g0, size);
  void* dst = Vram(g1, size);
  const hsa_signal_t up = Signal(1), peer = Signal(1);
  ASSERT_EQ(hsa_amd_memory_async_copy(src, g0, in.data(), agents_.cpu, size, 0, nullptr, up), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_async_copy(dst, g1, src, g0, size, 1, &up, peer), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Await(peer), 0);
  EXPECT_EQ(ReadBack(dst, g1, size), in);
  uint32_t mask = 0;
  ASSERT_EQ(hsa_amd_memory_copy_engine_status(g1, g0, &mask), HSA_STATUS_SUCCESS);
  EXPECT_NE(mask, 0u);
}

}  // namespace
