// hsa_amd_svm_attributes_set / _get and hsa_amd_svm_prefetch_async through the C API, and the SVM system
// attributes: the conformance a client of ROCr relies on (attribute pairs read back as set, query-only and
// set-only attributes refused, duplicates INCOMPATIBLE_ARGUMENTS, unknown agents INVALID_AGENT, prefetch after its
// dependency, with a null completion signal allowed).
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

constexpr size_t kSize = 2 << 20;
constexpr auto kIncompatible = static_cast<hsa_status_t>(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);

struct Agents {
  std::vector<hsa_agent_t> cpus;
  std::vector<hsa_agent_t> gpus;
};

hsa_status_t Collect(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  auto* agents = static_cast<Agents*>(data);
  (type == HSA_DEVICE_TYPE_GPU ? agents->gpus : agents->cpus).push_back(agent);
  return HSA_STATUS_SUCCESS;
}

TEST(HsaSvmCApiBeforeInit, IsNotInitialized) {
  hsa_amd_svm_attribute_pair_t pair{HSA_AMD_SVM_ATTRIB_READ_ONLY, 1};
  int x = 0;
  EXPECT_EQ(hsa_amd_svm_attributes_set(&x, 4, &pair, 1), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_svm_attributes_get(&x, 4, &pair, 1), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_svm_prefetch_async(&x, 4, hsa_agent_t{1}, 0, nullptr, hsa_signal_t{0}),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
}

class HsaSvmCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(Collect, &agents_), HSA_STATUS_SUCCESS);
    ASSERT_FALSE(agents_.cpus.empty());
    ASSERT_FALSE(agents_.gpus.empty());
    void* p = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    ptr_ = p;
  }
  void TearDown() override {
    if (ptr_ != nullptr) munmap(ptr_, kSize);
    EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  }

  Agents agents_;
  void* ptr_ = nullptr;
};

TEST_F(HsaSvmCApi, SystemReportsSvmSupportedAndAccessFollowsXnack) {
  bool supported = false;
  ASSERT_EQ(hsa_system_get_info(HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED, &supported), HSA_STATUS_SUCCESS);
  EXPECT_TRUE(supported) << "every simulated GPU advertises AMDKFD_IOC_SVM";
  bool by_default = true;
  ASSERT_EQ(hsa_system_get_info(HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT, &by_default), HSA_STATUS_SUCCESS);
  // Built three ways (BUILD): without HSA_XNACK no GPU retries faults, so a range must be given to a GPU; with
  // HSA_XNACK=1 the process enters XNACK mode where the GPUs can (gfx942), and gfx1100 never can.
  const char* xnack = std::getenv("HSA_XNACK");
  const char* preset = std::getenv("HIPMEM_SIM_PRESET");
  const bool gfx1100 = preset != nullptr && std::strstr(preset, "rx7900xtx") != nullptr;
  const bool expected = xnack != nullptr && std::strcmp(xnack, "1") == 0 && !gfx1100;
  EXPECT_EQ(by_default, expected);
}

TEST_F(HsaSvmCApi, PairsReadBackAsSet) {
  const hsa_agent_t gpu = agents_.gpus[0];
  hsa_amd_svm_attribute_pair_t set[] = {
      {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED},
      {HSA_AMD_SVM_ATTRIB_READ_ONLY, 1},
      {HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY, 5},
      {HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, gpu.handle},
      {HSA_AMD_SVM_ATTRIB_READ_MOSTLY, 1},
      {HSA_AMD_SVM_ATTRIB_GPU_EXEC, 1},
      {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, gpu.handle},
  };
  ASSERT_EQ(hsa_amd_svm_attributes_set(ptr_, kSize, set, std::size(set)), HSA_STATUS_SUCCESS);
  hsa_amd_svm_attribute_pair_t get[] = {
      {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 99},          {HSA_AMD_SVM_ATTRIB_READ_ONLY, 99},
      {HSA_AMD_SVM_ATTRIB_HIVE_LOCAL, 99},           {HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY, 99},
      {HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 99},   {HSA_AMD_SVM_ATTRIB_READ_MOSTLY, 99},
      {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, gpu.handle}, {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, agents_.cpus[0].handle},
  };
  ASSERT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, get, std::size(get)), HSA_STATUS_SUCCESS);
  EXPECT_EQ(get[0].value, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED);
  EXPECT_EQ(get[1].value, 1u);
  EXPECT_EQ(get[2].value, 0u);
  EXPECT_EQ(get[3].value, 5u);
  EXPECT_EQ(get[4].value, gpu.handle);
  EXPECT_EQ(get[5].value, 1u);
  EXPECT_EQ(get[6].attribute, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE);
  EXPECT_EQ(get[6].value, gpu.handle) << "the value keeps naming the agent";
  EXPECT_EQ(get[7].attribute, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE) << "host access is on by default";

  // A null agent clears the preferred location.
  hsa_amd_svm_attribute_pair_t clear[] = {{HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 0}};
  ASSERT_EQ(hsa_amd_svm_attributes_set(ptr_, kSize, clear, 1), HSA_STATUS_SUCCESS);
  hsa_amd_svm_attribute_pair_t pref[] = {{HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 99}};
  ASSERT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, pref, 1), HSA_STATUS_SUCCESS);
  EXPECT_EQ(pref[0].value, 0u);
}

TEST_F(HsaSvmCApi, BadListsGetRocrsCodesAndChangeNothing) {
  const hsa_agent_t gpu = agents_.gpus[0];
  struct Row {
    const char* what;
    std::vector<hsa_amd_svm_attribute_pair_t> pairs;
    hsa_status_t expected;
  };
  const Row rows[] = {
      {"attribute twice", {{HSA_AMD_SVM_ATTRIB_READ_ONLY, 1}, {HSA_AMD_SVM_ATTRIB_READ_ONLY, 0}}, kIncompatible},
      {"two accesses for one agent",
       {{HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, gpu.handle}, {HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS, gpu.handle}},
       kIncompatible},
      {"bad grain", {{HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE}},
       HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"query-only prefetch location", {{HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, gpu.handle}},
       HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"query-only access query", {{HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, gpu.handle}}, HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"unknown attribute", {{0x999, 0}}, HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"unknown agent", {{HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, 0x1234}}, HSA_STATUS_ERROR_INVALID_AGENT},
      {"unknown preferred agent", {{HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 0x1234}}, HSA_STATUS_ERROR_INVALID_AGENT},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    std::vector<hsa_amd_svm_attribute_pair_t> pairs = row.pairs;
    // A valid change first in the list, to see that a refused list applies none of it.
    pairs.insert(pairs.begin(), {HSA_AMD_SVM_ATTRIB_HIVE_LOCAL, 1});
    EXPECT_EQ(hsa_amd_svm_attributes_set(ptr_, kSize, pairs.data(), pairs.size()), row.expected);
    hsa_amd_svm_attribute_pair_t hive[] = {{HSA_AMD_SVM_ATTRIB_HIVE_LOCAL, 99}};
    ASSERT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, hive, 1), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hive[0].value, 0u);
  }
  hsa_amd_svm_attribute_pair_t get_bad[] = {{HSA_AMD_SVM_ATTRIB_READ_ONLY, 7}, {HSA_AMD_SVM_ATTRIB_GPU_EXEC, 7}};
  EXPECT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, get_bad, 2), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(get_bad[0].value, 7u) << "a refused query writes nothing";
  hsa_amd_svm_attribute_pair_t access_set_only[] = {{HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, gpu.handle}};
  EXPECT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, access_set_only, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_amd_svm_attribute_pair_t unknown_query[] = {{HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, 0x1234}};
  EXPECT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, unknown_query, 1), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_svm_attributes_set(ptr_, kSize, nullptr, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, nullptr, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Memory the process does not have: the KFD refuses, which ROCr answers HSA_STATUS_ERROR.
  void* hole = mmap(nullptr, kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  munmap(hole, kSize);
  hsa_amd_svm_attribute_pair_t ro[] = {{HSA_AMD_SVM_ATTRIB_READ_ONLY, 1}};
  EXPECT_EQ(hsa_amd_svm_attributes_set(hole, kSize, ro, 1), HSA_STATUS_ERROR);
}

TEST_F(HsaSvmCApi, PrefetchRunsAfterItsDependencyAndBack) {
  const hsa_agent_t gpu = agents_.gpus[0];
  std::memset(ptr_, 0x3c, kSize);
  hsa_signal_t dep;
  hsa_signal_t done;
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &dep), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &done), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_svm_prefetch_async(ptr_, kSize, gpu, 1, &dep, done), HSA_STATUS_SUCCESS);
  hsa_amd_svm_attribute_pair_t where[] = {{HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0}};
  ASSERT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, where, 1), HSA_STATUS_SUCCESS);
  EXPECT_EQ(where[0].value, gpu.handle) << "a queued prefetch already reads as its destination";
  EXPECT_EQ(hsa_signal_load_scacquire(done), 1) << "the dependency is still 1";

  hsa_signal_store_screlease(dep, 0);
  ASSERT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 0);
  ASSERT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, where, 1), HSA_STATUS_SUCCESS);
  EXPECT_EQ(where[0].value, gpu.handle);

  // Back to the CPU with no completion signal (allowed), then a fenced one to know it landed.
  ASSERT_EQ(hsa_amd_svm_prefetch_async(ptr_, kSize, agents_.cpus[0], 0, nullptr, hsa_signal_t{0}),
            HSA_STATUS_SUCCESS);
  hsa_signal_store_screlease(done, 1);
  ASSERT_EQ(hsa_amd_svm_prefetch_async(ptr_, kSize, agents_.cpus[0], 0, nullptr, done), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 0);
  ASSERT_EQ(hsa_amd_svm_attributes_get(ptr_, kSize, where, 1), HSA_STATUS_SUCCESS);
  EXPECT_EQ(where[0].value, agents_.cpus[0].handle);
  const auto* bytes = static_cast<const unsigned char*>(ptr_);
  EXPECT_EQ(bytes[0], 0x3c);
  EXPECT_EQ(bytes[kSize - 1], 0x3c);

  EXPECT_EQ(hsa_amd_svm_prefetch_async(ptr_, kSize, hsa_agent_t{0x1234}, 0, nullptr, done),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_amd_svm_prefetch_async(ptr_, kSize, gpu, 1, nullptr, done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const hsa_signal_t bogus{0x4321};
  EXPECT_EQ(hsa_amd_svm_prefetch_async(ptr_, kSize, gpu, 1, &bogus, done), HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(hsa_signal_destroy(dep), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
}

}  // namespace
