// Agent and pool finding for the hsa tests, at both levels they test: the hsa_* C API (after hsa_init) and the
// runtime's C++ API. Failures are reported to the running test (ADD_FAILURE) and answered with an empty
// value, so a fixture can ASSERT on what it needs.
#ifndef HIPMEM_HSA_HSA_TEST_UTIL_H_
#define HIPMEM_HSA_HSA_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/runtime.h"

namespace hipmem::hsa_test {

// --- The C API ---

struct CAgents {
  std::vector<hsa_agent_t> cpus;
  std::vector<hsa_agent_t> gpus;  // in hsa_iterate_agents order
};
// Every agent, by device type.
CAgents CollectAgents();

struct CPool {
  hsa_amd_memory_pool_t pool;
  hsa_amd_segment_t segment;
  uint32_t global_flags;  // 0 for a pool outside the GLOBAL segment
};
// `agent`'s pools in hsa_amd_agent_iterate_memory_pools order.
std::vector<CPool> CollectPools(hsa_agent_t agent);
// `agent`'s GLOBAL pool whose flags are exactly `global_flags`; handle 0 when there is none.
hsa_amd_memory_pool_t GlobalPoolExactly(hsa_agent_t agent, uint32_t global_flags);
// `agent`'s first GLOBAL pool with any of the `global_flags` bits; handle 0 when there is none.
hsa_amd_memory_pool_t GlobalPoolWithAny(hsa_agent_t agent, uint32_t global_flags);

// --- The runtime's C++ API ---

struct RuntimeAgents {
  const hsa::Agent* cpu = nullptr;  // the first CPU agent
  std::vector<const hsa::Agent*> gpus;
};
RuntimeAgents SplitAgents(const hsa::Runtime& runtime);
// `agent`'s GLOBAL pool whose flags are exactly `flags`; nullptr when there is none.
const hsa::MemoryPool* GlobalPool(const hsa::Runtime& runtime, const hsa::Agent& agent, hsa::GlobalFlags flags);

}  // namespace hipmem::hsa_test

#endif  // HIPMEM_HSA_HSA_TEST_UTIL_H_
