// ROCR_VISIBLE_DEVICES through hsa_init: which GPU agents hsa_iterate_agents reports, in which order, and that
// the surfaced ones work (allocation and a copy). The build target sets the variable and, in
// HIPMEM_TEST_EXPECT_GPU_NODES, the KFD nodes expected in order ("" for none).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"

namespace {

std::vector<uint32_t> ExpectedNodes() {
  const char* env = std::getenv("HIPMEM_TEST_EXPECT_GPU_NODES");
  std::vector<uint32_t> nodes;
  if (env == nullptr) return nodes;
  for (absl::string_view part : absl::StrSplit(env, ',', absl::SkipEmpty())) {
    uint32_t n = 0;
    EXPECT_TRUE(absl::SimpleAtoi(part, &n)) << part;
    nodes.push_back(n);
  }
  return nodes;
}

TEST(RocrVisibleDevices, SurfacesTheListedGpusInOrder) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  const hipmem::hsa_test::CAgents agents = hipmem::hsa_test::CollectAgents();
  EXPECT_EQ(agents.cpus.size(), 1u);
  std::vector<uint32_t> nodes;
  for (hsa_agent_t gpu : agents.gpus) {
    uint32_t node = 0;
    ASSERT_EQ(hsa_agent_get_info(gpu, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_DRIVER_NODE_ID), &node),
              HSA_STATUS_SUCCESS);
    nodes.push_back(node);
  }
  EXPECT_THAT(nodes, ::testing::ElementsAreArray(ExpectedNodes()));

  // Each surfaced GPU allocates and copies from system memory.
  const hsa_amd_memory_pool_t system =
      hipmem::hsa_test::GlobalPoolExactly(agents.cpus[0], HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
  for (hsa_agent_t gpu : agents.gpus) {
    const hsa_amd_memory_pool_t vram =
        hipmem::hsa_test::GlobalPoolExactly(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    void* device = nullptr;
    void* host = nullptr;
    ASSERT_EQ(hsa_amd_memory_pool_allocate(vram, 4096, 0, &device), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_amd_memory_pool_allocate(system, 4096, 0, &host), HSA_STATUS_SUCCESS);
    std::memset(host, 0x5a, 4096);
    EXPECT_EQ(hsa_memory_copy(device, host, 4096), HSA_STATUS_SUCCESS);
    std::memset(host, 0, 4096);
    EXPECT_EQ(hsa_memory_copy(host, device, 4096), HSA_STATUS_SUCCESS);
    EXPECT_EQ(static_cast<unsigned char*>(host)[4095], 0x5a);
    EXPECT_EQ(hsa_amd_memory_pool_free(device), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_amd_memory_pool_free(host), HSA_STATUS_SUCCESS);
  }
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

}  // namespace
