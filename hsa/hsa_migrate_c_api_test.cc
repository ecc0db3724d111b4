// hsa_amd_memory_pool_can_migrate and hsa_amd_memory_migrate answer what current ROCr answers (its
// AMD::MemoryRegion does not migrate: OUT_OF_RESOURCES, and "cannot migrate"), after ROCr's argument and pool
// checks, so a client that probes for migration takes its no-migration path, exactly as on real hardware.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

hsa_status_t CollectPools(hsa_amd_memory_pool_t pool, void* data) {
  static_cast<std::vector<hsa_amd_memory_pool_t>*>(data)->push_back(pool);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t CollectAgentPools(hsa_agent_t agent, void* data) {
  return hsa_amd_agent_iterate_memory_pools(agent, CollectPools, data);
}

constexpr auto kInvalidPool = static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);

TEST(HsaMigrateCApiBeforeInit, IsNotInitialized) {
  bool result = true;
  int x = 0;
  EXPECT_EQ(hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t{1}, hsa_amd_memory_pool_t{1}, &result),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_TRUE(result);
  EXPECT_EQ(hsa_amd_memory_migrate(&x, hsa_amd_memory_pool_t{1}, 0), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST(HsaMigrateCApi, NoPoolPairMigratesAndBadArgumentsGetRocrsCodes) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  std::vector<hsa_amd_memory_pool_t> pools;
  ASSERT_EQ(hsa_iterate_agents(CollectAgentPools, &pools), HSA_STATUS_SUCCESS);
  ASSERT_GE(pools.size(), 2u);
  for (hsa_amd_memory_pool_t src : pools) {
    for (hsa_amd_memory_pool_t dst : pools) {
      bool result = true;
      EXPECT_EQ(hsa_amd_memory_pool_can_migrate(src, dst, &result), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      EXPECT_FALSE(result);
    }
  }
  const hsa_amd_memory_pool_t bogus{0x1234};
  bool result = true;
  EXPECT_EQ(hsa_amd_memory_pool_can_migrate(pools[0], pools[1], nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_pool_can_migrate(bogus, pools[1], &result), kInvalidPool);
  EXPECT_EQ(hsa_amd_memory_pool_can_migrate(pools[0], bogus, &result), kInvalidPool);
  EXPECT_TRUE(result) << "a refused query writes nothing";

  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(pools[0], 4096, 0, &p), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_memory_migrate(p, pools[1], 0), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(hsa_amd_memory_migrate(nullptr, pools[1], 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_migrate(p, pools[1], 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_migrate(p, bogus, 0), kInvalidPool);
  EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS) << "the allocation stayed where it was, and whole";
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

}  // namespace
