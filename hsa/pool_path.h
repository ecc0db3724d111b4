// How an agent reaches a memory pool, in HSA's C++ vocabulary: the ACCESS, NUM_LINK_HOPS and LINK_INFO answers
// of hsa_amd_agent_memory_pool_get_info for clients above hsa/ (ROCclr's p2p device lists and link queries).
//
// A typed view over WriteLinkAgentPoolInfo (agent_info.h), which holds ROCr's rules. Thread-safe.
#ifndef HIPMEM_HSA_POOL_PATH_H_
#define HIPMEM_HSA_POOL_PATH_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

// hsa_amd_memory_pool_access_t.
enum class PoolAccess : uint32_t { kNeverAllowed = 0, kAllowedByDefault = 1, kDisallowedByDefault = 2 };
// hsa_amd_link_info_type_t.
enum class LinkType : uint32_t { kHyperTransport = 0, kQpi = 1, kPcie = 2, kInfiniband = 3, kXgmi = 4 };

// One hop of the path (hsa_amd_memory_pool_link_info_t).
struct LinkHop {
  LinkType type = LinkType::kPcie;
  uint32_t numa_distance = 0;  // the KFD's io-link weight
  bool atomics_32bit = false;
  bool atomics_64bit = false;
  bool coherent = false;
};

struct PoolPath {
  PoolAccess access = PoolAccess::kNeverAllowed;
  std::vector<LinkHop> hops;  // empty for the pool's own agent, and when there is no path
};

// The path from `agent` to `pool`. Errors: kInvalidArgument (INVALID_AGENT / INVALID_MEMORY_POOL) for ids this
// runtime did not hand out.
absl::StatusOr<PoolPath> DescribePoolPath(const Runtime& runtime, AgentId agent, PoolId pool);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_POOL_PATH_H_
