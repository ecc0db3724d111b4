// Writers for the system and agent attributes that come from the machine's topology.
//
// Plays the topology half of ROCr's Runtime::GetSystemInfo and GpuAgent/CpuAgent::GetInfo: the C types
// of hsa_system_get_info / hsa_agent_get_info written into caller buffers. c_abi.cc calls these for every
// attribute it does not answer itself. Thread-safe.
#ifndef HIPMEM_HSA_AGENT_INFO_H_
#define HIPMEM_HSA_AGENT_INFO_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hsa/runtime.h"
#include "hsa/topology.h"

namespace hipmem::hsa {

// Writes one hsa_system_info_t attribute among EXTENSIONS and the HSA_AMD_SYSTEM_INFO_* ones.
// kInvalidArgument for any other.
absl::Status WriteTopologySystemInfo(uint32_t attribute, void* value);

// Returns the description of `agent` (its node's properties as ROCr reports them).
// kInvalidArgument (INVALID_AGENT) for an agent whose node the runtime's topology lacks.
absl::StatusOr<AgentDescription> DescribeRuntimeAgent(Runtime& runtime, const Agent& agent);

// Writes one hsa_agent_info_t / hsa_amd_agent_info_t attribute answered from the topology.
// kInvalidArgument for an attribute this runtime does not answer.
absl::Status WriteTopologyAgentInfo(Runtime& runtime, const Agent& agent, uint32_t attribute, void* value);

// Whether HSA_XNACK=1 asks for XNACK (page-fault retry) mode, as ROCr reads it.
bool XnackEnabled();

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_AGENT_INFO_H_
