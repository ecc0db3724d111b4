// The HSA C API as rocminfo-style clients use it.
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"

namespace {

hsa_status_t FindCoarsePool(hsa_amd_memory_pool_t pool, void* data) {
  uint32_t flags = 0;
  hsa_amd_segment_t segment;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if (segment == HSA_AMD_SEGMENT_GLOBAL && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)) {
    *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

TEST(HsaCApiTest, EverythingBeforeInitIsNotInitialized) {
  EXPECT_EQ(hsa_iterate_agents([](hsa_agent_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

class HsaCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    found_ = hipmem::hsa_test::CollectAgents();
    ASSERT_EQ(found_.gpus.size(), 1u);
    ASSERT_EQ(found_.cpus.size(), 1u);
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }
  hipmem::hsa_test::CAgents found_;
};

TEST_F(HsaCApi, InitIsReferenceCounted) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  char name[64];
  EXPECT_EQ(hsa_agent_get_info(found_.gpus[0], HSA_AGENT_INFO_NAME, name), HSA_STATUS_SUCCESS);
  EXPECT_STREQ(name, "gfx942");
}

TEST_F(HsaCApi, PoolAllocateCopyFree) {
  hsa_amd_memory_pool_t pool{0};
  ASSERT_EQ(hsa_amd_agent_iterate_memory_pools(found_.gpus[0], FindCoarsePool, &pool), HSA_STATUS_INFO_BREAK);
  size_t granule = 0;
  ASSERT_EQ(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(granule, 4096u);
  uint64_t before = 0, during = 0;
  ASSERT_EQ(hsa_agent_get_info(found_.gpus[0], static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_MEMORY_AVAIL), &before),
            HSA_STATUS_SUCCESS);
  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(pool, 1 << 20, 0, &p), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_agent_get_info(found_.gpus[0], static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_MEMORY_AVAIL), &during),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(before - during, 2u << 20);  // the fragment allocator's 2 MiB block holds the 1 MiB
  std::vector<char> in(1 << 20, 'x'), out(1 << 20, 0);
  EXPECT_EQ(hsa_memory_copy(p, in.data(), in.size()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_copy(out.data(), p, out.size()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(in, out);
  EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  EXPECT_EQ(hsa_amd_memory_pool_free(nullptr), HSA_STATUS_SUCCESS);
}

TEST_F(HsaCApi, BadArgumentsGetRocrCodes) {
  void* p = nullptr;
  hsa_amd_memory_pool_t bogus{42};
  EXPECT_EQ(hsa_amd_memory_pool_allocate(bogus, 4096, 0, &p), HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  hsa_amd_memory_pool_t pool{0};
  ASSERT_EQ(hsa_amd_agent_iterate_memory_pools(found_.gpus[0], FindCoarsePool, &pool), HSA_STATUS_INFO_BREAK);
  EXPECT_EQ(hsa_amd_memory_pool_allocate(pool, 0, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_pool_allocate(pool, 4096, 0, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_agent_t bogus_agent{7};
  char name[64];
  EXPECT_EQ(hsa_agent_get_info(bogus_agent, HSA_AGENT_INFO_NAME, name), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_agent_get_info(found_.gpus[0], HSA_AGENT_INFO_NAME, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_copy(nullptr, name, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_copy(name, name, 0), HSA_STATUS_SUCCESS);
  const char* text = nullptr;
  EXPECT_EQ(hsa_status_string(HSA_STATUS_ERROR_INVALID_AGENT, &text), HSA_STATUS_SUCCESS);
  EXPECT_NE(text, nullptr);
  uint16_t major = 0;
  EXPECT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major), HSA_STATUS_SUCCESS);
  EXPECT_EQ(major, 1);
}

TEST_F(HsaCApi, GpuSeesItsVramByDefaultAndCpuPoolsToo) {
  hsa_amd_memory_pool_t pool{0};
  ASSERT_EQ(hsa_amd_agent_iterate_memory_pools(found_.gpus[0], FindCoarsePool, &pool), HSA_STATUS_INFO_BREAK);
  hsa_amd_memory_pool_access_t access;
  ASSERT_EQ(hsa_amd_agent_memory_pool_get_info(found_.gpus[0], pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(access, HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
  ASSERT_EQ(hsa_amd_agent_memory_pool_get_info(found_.cpus[0], pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(access, HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);
}

}  // namespace
