// The fixture the HSA copy C API tests share (hsa_copy_rect_c_api_test, hsa_copy_batch_c_api_test): the runtime
// up for each test, the CPU agent and the GPUs, and helpers that allocate coarse-grained VRAM, create signals and
// move bytes in and out of VRAM with plain linear copies, every resource released at TearDown. Only the public
// C API is used, as a ROCr client would.
#ifndef HIPMEM_HSA_COPY_C_API_FIXTURE_H_
#define HIPMEM_HSA_COPY_C_API_FIXTURE_H_

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace hsa_copy_test {

inline constexpr uint64_t kForever = UINT64_MAX;

struct Agents {
  hsa_agent_t cpu{0};
  std::vector<hsa_agent_t> gpus;
};

inline hsa_status_t CollectAgent(hsa_agent_t agent, void* data) {
  auto* agents = static_cast<Agents*>(data);
  hsa_device_type_t type;
  if (hsa_status_t s = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type); s != HSA_STATUS_SUCCESS) return s;
  if (type == HSA_DEVICE_TYPE_GPU) agents->gpus.push_back(agent);
  if (type == HSA_DEVICE_TYPE_CPU && agents->cpu.handle == 0) agents->cpu = agent;
  return HSA_STATUS_SUCCESS;
}

inline hsa_status_t FindCoarsePool(hsa_amd_memory_pool_t pool, void* data) {
  auto* found = static_cast<hsa_amd_memory_pool_t*>(data);
  hsa_amd_segment_t segment;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
  uint32_t flags = 0;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if (segment == HSA_AMD_SEGMENT_GLOBAL && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) != 0 &&
      found->handle == 0) {
    *found = pool;
  }
  return HSA_STATUS_SUCCESS;
}

// Whether the test runs with ROCr's SDMA engines switched off (HSA_ENABLE_SDMA=0).
inline bool SdmaDisabled() {
  const char* v = std::getenv("HSA_ENABLE_SDMA");
  return v != nullptr && std::string(v) == "0";
}

// Bytes no two offsets of a surface share by accident (a row or slice copied to the wrong place shows).
inline std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + i / 253);
  return v;
}

class CopyCApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(CollectAgent, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_NE(agents_.cpu.handle, 0u);
    ASSERT_FALSE(agents_.gpus.empty());
    gpu_ = agents_.gpus[0];
  }
  void TearDown() override {
    for (hsa_signal_t s : signals_) EXPECT_EQ(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
    for (void* p : allocations_) EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  }

  // Coarse-grained VRAM of `gpu`, freed at TearDown.
  void* Vram(hsa_agent_t gpu, size_t size) {
    hsa_amd_memory_pool_t pool{0};
    EXPECT_EQ(hsa_amd_agent_iterate_memory_pools(gpu, FindCoarsePool, &pool), HSA_STATUS_SUCCESS);
    void* p = nullptr;
    EXPECT_EQ(hsa_amd_memory_pool_allocate(pool, size, 0, &p), HSA_STATUS_SUCCESS);
    if (p != nullptr) allocations_.push_back(p);
    return p;
  }

  // A signal destroyed at TearDown.
  hsa_signal_t Signal(hsa_signal_value_t initial) {
    hsa_signal_t s{0};
    EXPECT_EQ(hsa_signal_create(initial, 0, nullptr, &s), HSA_STATUS_SUCCESS);
    signals_.push_back(s);
    return s;
  }

  hsa_signal_value_t Await(hsa_signal_t s) {
    return hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, kForever, HSA_WAIT_STATE_BLOCKED);
  }

  // Linear copies between host memory and VRAM, to set up and read back the surfaces.
  void Linear(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size) {
    const hsa_signal_t done = Signal(1);
    ASSERT_EQ(hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, size, 0, nullptr, done), HSA_STATUS_SUCCESS);
    ASSERT_EQ(Await(done), 0);
  }
  void* VramWith(const std::vector<uint8_t>& contents) {
    void* v = Vram(gpu_, contents.size());
    Linear(v, gpu_, contents.data(), agents_.cpu, contents.size());
    return v;
  }
  std::vector<uint8_t> ReadVram(const void* vram, size_t size) {
    std::vector<uint8_t> out(size, 0xcd);
    Linear(out.data(), agents_.cpu, vram, gpu_, size);
    return out;
  }

  Agents agents_;
  hsa_agent_t gpu_{0};
  std::vector<hsa_signal_t> signals_;
  std::vector<void*> allocations_;
};

}  // namespace hsa_copy_test

#endif  // HIPMEM_HSA_COPY_C_API_FIXTURE_H_
