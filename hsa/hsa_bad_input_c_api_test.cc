// Bad input through the HSA C API, one row per case, each asserting the code current ROCr answers (issue #24 §5).
// The comment on a row names the ROCr function (ROCm/ROCR-Runtime, now ROCm/rocm-systems projects/rocr-runtime,
// runtime/hsa-runtime/core) that decides it.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"

namespace {

struct Env {
  hsa_agent_t gpu{};
  hsa_amd_memory_pool_t pool{};
  void* never_locked = nullptr;  // host memory nobody locked
  void* unknown = nullptr;       // an address no allocation holds
};

struct Row {
  const char* name;
  hsa_status_t (*call)(const Env&);
  hsa_status_t expected;
};

constexpr Row kRows[] = {
    // amd_memory_region.cpp MemoryRegion::Unlock (reached from hsa_ext_amd.cpp hsa_amd_memory_unlock): unlocking
    // memory that is not locked deregisters nothing and succeeds.
    {"hsa_amd_memory_unlock(never locked)", [](const Env& e) { return hsa_amd_memory_unlock(e.never_locked); },
     HSA_STATUS_SUCCESS},
    // hsa_ext_amd.cpp hsa_amd_memory_lock: a null pointer or size 0 is an invalid argument.
    {"hsa_amd_memory_lock(nullptr)",
     [](const Env&) {
       void* agent_ptr = nullptr;
       return hsa_amd_memory_lock(nullptr, 4096, nullptr, 0, &agent_ptr);
     },
     HSA_STATUS_ERROR_INVALID_ARGUMENT},
    // hsa_ext_amd.cpp hsa_amd_memory_lock: an agent list without a count is an invalid argument.
    {"hsa_amd_memory_lock(agents, 0)",
     [](const Env& e) {
       void* agent_ptr = nullptr;
       hsa_agent_t agents[1] = {e.gpu};
       return hsa_amd_memory_lock(e.never_locked, 4096, agents, 0, &agent_ptr);
     },
     HSA_STATUS_ERROR_INVALID_ARGUMENT},
    // hsa.cpp hsa_memory_free (hsa_amd_memory_pool_free's body): a null pointer succeeds.
    {"hsa_amd_memory_pool_free(nullptr)", [](const Env&) { return hsa_amd_memory_pool_free(nullptr); },
     HSA_STATUS_SUCCESS},
    // runtime.cpp Runtime::FreeMemory: an address not in allocation_map_ is HSA_STATUS_ERROR_INVALID_ALLOCATION.
    {"hsa_amd_memory_pool_free(unknown)", [](const Env& e) { return hsa_amd_memory_pool_free(e.unknown); },
     HSA_STATUS_ERROR_INVALID_ALLOCATION},
    // hsa_ext_amd.cpp hsa_amd_memory_pool_allocate: size 0 is an invalid argument.
    {"hsa_amd_memory_pool_allocate(size 0)",
     [](const Env& e) {
       void* p = nullptr;
       return hsa_amd_memory_pool_allocate(e.pool, 0, 0, &p);
     },
     HSA_STATUS_ERROR_INVALID_ARGUMENT},
};

TEST(HsaBadInput, EachCaseAnswersRocrsCode) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  Env env;
  const hipmem::hsa_test::CAgents agents = hipmem::hsa_test::CollectAgents();
  ASSERT_FALSE(agents.gpus.empty());
  env.gpu = agents.gpus[0];
  env.pool = hipmem::hsa_test::GlobalPoolWithAny(env.gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
  ASSERT_NE(env.pool.handle, 0u);
  std::vector<uint64_t> host(4096 / sizeof(uint64_t));
  env.never_locked = host.data();
  env.unknown = host.data() + 8;
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.call(env), row.expected);
  }
  // The runtime is still whole: a lock and unlock of the same memory work.
  void* agent_ptr = nullptr;
  EXPECT_EQ(hsa_amd_memory_lock(host.data(), 4096, nullptr, 0, &agent_ptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_memory_unlock(host.data()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

}  // namespace
