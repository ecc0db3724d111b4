// The agent-tuning entry points behave as ROCr's do on a dGPU: the coherency type is per GPU, starts COHERENT,
// reads back what was set and starts over with a new runtime; async scratch limits are refused (no scratch to
// reclaim); preload succeeds on a GPU; every one rejects CPU agents and unknown handles with ROCr's codes.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

struct Agents {
  std::vector<hsa_agent_t> cpus, gpus;
};

hsa_status_t Collect(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  auto* agents = static_cast<Agents*>(data);
  (type == HSA_DEVICE_TYPE_GPU ? agents->gpus : agents->cpus).push_back(agent);
  return HSA_STATUS_SUCCESS;
}

constexpr hsa_agent_t kBogus{0xdead'beef};

TEST(HsaAgentSettingsBeforeInitTest, NotInitialized) {
  hsa_amd_coherency_type_t type = HSA_AMD_COHERENCY_TYPE_NONCOHERENT;
  EXPECT_EQ(hsa_amd_coherency_get_type(hsa_agent_t{1}, &type), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_NONCOHERENT);
  EXPECT_EQ(hsa_amd_coherency_set_type(hsa_agent_t{1}, HSA_AMD_COHERENCY_TYPE_COHERENT),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_agent_set_async_scratch_limit(hsa_agent_t{1}, 1 << 20), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_agent_preload(hsa_agent_t{1}, 0), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

class HsaAgentSettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(Collect, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_FALSE(agents_.cpus.empty());
    ASSERT_FALSE(agents_.gpus.empty());
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  Agents agents_;
};

TEST_F(HsaAgentSettingsTest, CoherencyStartsCoherentAndReadsBackWhatWasSet) {
  for (hsa_agent_t gpu : agents_.gpus) {
    hsa_amd_coherency_type_t type = HSA_AMD_COHERENCY_TYPE_NONCOHERENT;
    ASSERT_EQ(hsa_amd_coherency_get_type(gpu, &type), HSA_STATUS_SUCCESS);
    EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_COHERENT);
  }
  const hsa_agent_t gpu = agents_.gpus.front();
  ASSERT_EQ(hsa_amd_coherency_set_type(gpu, HSA_AMD_COHERENCY_TYPE_NONCOHERENT), HSA_STATUS_SUCCESS);
  hsa_amd_coherency_type_t type = HSA_AMD_COHERENCY_TYPE_COHERENT;
  ASSERT_EQ(hsa_amd_coherency_get_type(gpu, &type), HSA_STATUS_SUCCESS);
  EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_NONCOHERENT);
  // Per GPU: the others keep theirs.
  for (size_t i = 1; i < agents_.gpus.size(); ++i) {
    ASSERT_EQ(hsa_amd_coherency_get_type(agents_.gpus[i], &type), HSA_STATUS_SUCCESS);
    EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_COHERENT);
  }
  ASSERT_EQ(hsa_amd_coherency_set_type(gpu, HSA_AMD_COHERENCY_TYPE_COHERENT), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_coherency_get_type(gpu, &type), HSA_STATUS_SUCCESS);
  EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_COHERENT);
}

TEST_F(HsaAgentSettingsTest, CoherencyStartsOverWithANewRuntime) {
  const hsa_agent_t gpu = agents_.gpus.front();
  ASSERT_EQ(hsa_amd_coherency_set_type(gpu, HSA_AMD_COHERENCY_TYPE_NONCOHERENT), HSA_STATUS_SUCCESS);
  // A nested hsa_init shares the runtime, and its setting.
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  hsa_amd_coherency_type_t type = HSA_AMD_COHERENCY_TYPE_COHERENT;
  ASSERT_EQ(hsa_amd_coherency_get_type(gpu, &type), HSA_STATUS_SUCCESS);
  EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_NONCOHERENT);
  // The last hsa_shut_down ends it; the next runtime starts at COHERENT.
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  Agents again;
  ASSERT_EQ(hsa_iterate_agents(Collect, &again), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_coherency_get_type(again.gpus.front(), &type), HSA_STATUS_SUCCESS);
  EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_COHERENT);
}

TEST_F(HsaAgentSettingsTest, CoherencyChecksInRocrsOrder) {
  const hsa_agent_t gpu = agents_.gpus.front();
  const hsa_agent_t cpu = agents_.cpus.front();
  hsa_amd_coherency_type_t type = HSA_AMD_COHERENCY_TYPE_NONCOHERENT;
  // The agent is checked before the output pointer, and a CPU agent after it.
  EXPECT_EQ(hsa_amd_coherency_get_type(kBogus, nullptr), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_coherency_get_type(gpu, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_coherency_get_type(cpu, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_coherency_get_type(cpu, &type), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_NONCOHERENT) << "nothing written on failure";
  const auto bad = static_cast<hsa_amd_coherency_type_t>(2);
  EXPECT_EQ(hsa_amd_coherency_set_type(kBogus, bad), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_coherency_set_type(gpu, bad), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_coherency_set_type(cpu, bad), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_coherency_set_type(cpu, HSA_AMD_COHERENCY_TYPE_NONCOHERENT), HSA_STATUS_ERROR_INVALID_AGENT);
  ASSERT_EQ(hsa_amd_coherency_get_type(gpu, &type), HSA_STATUS_SUCCESS);
  EXPECT_EQ(type, HSA_AMD_COHERENCY_TYPE_COHERENT) << "a rejected set changes nothing";
}

TEST_F(HsaAgentSettingsTest, AsyncScratchLimitIsRefusedWithoutScratchReclaim) {
  for (hsa_agent_t gpu : agents_.gpus) {
    EXPECT_EQ(hsa_amd_agent_set_async_scratch_limit(gpu, 64 << 20), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(hsa_amd_agent_set_async_scratch_limit(agents_.cpus.front(), 64 << 20), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_agent_set_async_scratch_limit(kBogus, 64 << 20), HSA_STATUS_ERROR_INVALID_AGENT);
}

TEST_F(HsaAgentSettingsTest, PreloadSucceedsOnGpusOnly) {
  for (hsa_agent_t gpu : agents_.gpus) {
    EXPECT_EQ(hsa_amd_agent_preload(gpu, 0), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_amd_agent_preload(gpu, HSA_AMD_AGENT_PRELOAD_SKIP_CLOCK_SYNC), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_amd_agent_preload(gpu, HSA_AMD_AGENT_PRELOAD_SKIP_BLITS), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_amd_agent_preload(gpu, uint64_t{1} << 40), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(hsa_amd_agent_preload(agents_.cpus.front(), 0), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_agent_preload(kBogus, 0), HSA_STATUS_ERROR_INVALID_AGENT);
}

}  // namespace
