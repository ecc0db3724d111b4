#include "hsa/hsa_test_util.h"

#include "gtest/gtest.h"

namespace hipmem::hsa_test {
namespace {

hsa_status_t AddAgent(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_status_t s = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type); s != HSA_STATUS_SUCCESS) return s;
  auto* agents = static_cast<CAgents*>(data);
  (type == HSA_DEVICE_TYPE_GPU ? agents->gpus : agents->cpus).push_back(agent);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t AddPool(hsa_amd_memory_pool_t pool, void* data) {
  CPool entry{pool, HSA_AMD_SEGMENT_GLOBAL, 0};
  if (hsa_status_t s = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &entry.segment);
      s != HSA_STATUS_SUCCESS) {
    return s;
  }
  if (entry.segment == HSA_AMD_SEGMENT_GLOBAL) {
    if (hsa_status_t s = hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &entry.global_flags);
        s != HSA_STATUS_SUCCESS) {
      return s;
    }
  }
  static_cast<std::vector<CPool>*>(data)->push_back(entry);
  return HSA_STATUS_SUCCESS;
}

}  // namespace

CAgents CollectAgents() {
  CAgents agents;
  EXPECT_EQ(hsa_iterate_agents(AddAgent, &agents), HSA_STATUS_SUCCESS);
  return agents;
}

std::vector<CPool> CollectPools(hsa_agent_t agent) {
  std::vector<CPool> pools;
  EXPECT_EQ(hsa_amd_agent_iterate_memory_pools(agent, AddPool, &pools), HSA_STATUS_SUCCESS);
  return pools;
}

hsa_amd_memory_pool_t GlobalPoolExactly(hsa_agent_t agent, uint32_t global_flags) {
  for (const CPool& p : CollectPools(agent)) {
    if (p.segment == HSA_AMD_SEGMENT_GLOBAL && p.global_flags == global_flags) return p.pool;
  }
  return hsa_amd_memory_pool_t{0};
}

hsa_amd_memory_pool_t GlobalPoolWithAny(hsa_agent_t agent, uint32_t global_flags) {
  for (const CPool& p : CollectPools(agent)) {
    if (p.segment == HSA_AMD_SEGMENT_GLOBAL && (p.global_flags & global_flags) != 0) return p.pool;
  }
  return hsa_amd_memory_pool_t{0};
}

RuntimeAgents SplitAgents(const hsa::Runtime& runtime) {
  RuntimeAgents agents;
  for (const hsa::Agent& a : runtime.agents()) {
    if (a.type == hsa::DeviceType::kGpu) agents.gpus.push_back(&a);
    if (a.type == hsa::DeviceType::kCpu && agents.cpu == nullptr) agents.cpu = &a;
  }
  return agents;
}

const hsa::MemoryPool* GlobalPool(const hsa::Runtime& runtime, const hsa::Agent& agent, hsa::GlobalFlags flags) {
  for (hsa::PoolId id : agent.pools) {
    absl::StatusOr<const hsa::MemoryPool*> pool = runtime.GetPool(id);
    if (pool.ok() && (*pool)->segment == hsa::Segment::kGlobal && (*pool)->global_flags == flags) return *pool;
  }
  return nullptr;
}

}  // namespace hipmem::hsa_test
