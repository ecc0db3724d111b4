#include "hsa/pool_path.h"

#include <cstdint>
#include <vector>

#include "base/status_macros.h"
#include "hsa/agent_info.h"
#include "hsa/hsa_ext_amd.h"

namespace hipmem::hsa {

absl::StatusOr<PoolPath> DescribePoolPath(const Runtime& runtime, AgentId agent_id, PoolId pool_id) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime.GetAgent(agent_id));
  ASSIGN_OR_RETURN(const MemoryPool* pool, runtime.GetPool(pool_id));
  hsa_amd_memory_pool_access_t access = HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
  RETURN_IF_ERROR(WriteLinkAgentPoolInfo(runtime, *agent, *pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access));
  uint32_t hops = 0;
  RETURN_IF_ERROR(
      WriteLinkAgentPoolInfo(runtime, *agent, *pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, &hops));
  std::vector<hsa_amd_memory_pool_link_info_t> links(hops);
  if (hops > 0) {
    RETURN_IF_ERROR(
        WriteLinkAgentPoolInfo(runtime, *agent, *pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO, links.data()));
  }
  PoolPath path;
  path.access = static_cast<PoolAccess>(access);
  for (const hsa_amd_memory_pool_link_info_t& link : links) {
    path.hops.push_back(LinkHop{static_cast<LinkType>(link.link_type), link.numa_distance, link.atomic_support_32bit,
                                link.atomic_support_64bit, link.coherent_support});
  }
  return path;
}

}  // namespace hipmem::hsa
