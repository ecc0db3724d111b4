// Writers for the system and agent attributes that come from the machine's topology.
//
// Plays the topology half of ROCr's Runtime::GetSystemInfo and GpuAgent/CpuAgent::GetInfo: the C types
// of hsa_system_get_info / hsa_agent_get_info written into caller buffers. c_abi.cc calls these for every
// attribute it does not answer itself. Thread-safe.
#ifndef HIPMEM_HSA_AGENT_INFO_H_
#define HIPMEM_HSA_AGENT_INFO_H_

#include <cstdint>
#include <vector>

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

// ---- ISAs, caches and wavefronts (hsa_isa_*, hsa_agent_iterate_caches, hsa_wavefront_*) ----

// The hsa_isa_t handles of `agent`'s instruction sets: one for a GPU, none for a CPU (ROCr's CPU agent
// iterates no ISA). kInvalidArgument (INVALID_AGENT) for an unknown agent.
absl::StatusOr<std::vector<uint64_t>> AgentIsaHandles(Runtime& runtime, AgentId agent);
// Writes one hsa_isa_info_t attribute of `isa`. NAME_LENGTH counts the terminating NUL, as ROCr's does (rocminfo
// allocates that many bytes for NAME). kInvalidArgument (INVALID_ISA) for an unknown handle, kInvalidArgument
// for an attribute the runtime does not answer.
absl::Status WriteIsaInfo(uint64_t isa, uint32_t attribute, void* value);
// Whether code built for `code_object_isa` runs on `agent_isa` (hsa_isa_compatible): the same processor, and
// each feature either unspecified ("any") on one side or equal. kInvalidArgument (INVALID_ISA) for an unknown handle.
absl::StatusOr<bool> IsaCompatible(uint64_t code_object_isa, uint64_t agent_isa);
// The wavefront handles of `isa` (one: its wavefront size). kInvalidArgument (INVALID_ISA) for an unknown handle.
absl::StatusOr<std::vector<uint64_t>> IsaWavefrontHandles(uint64_t isa);
// Writes HSA_WAVEFRONT_INFO_SIZE. kInvalidArgument (INVALID_WAVEFRONT) for an unknown handle or attribute.
absl::Status WriteWavefrontInfo(uint64_t wavefront, uint32_t attribute, void* value);

// The hsa_cache_t handles of `agent`'s caches, in ascending level (KFD order within a level).
// kInvalidArgument (INVALID_AGENT) for an unknown agent.
absl::StatusOr<std::vector<uint64_t>> AgentCacheHandles(Runtime& runtime, AgentId agent);
// Writes one hsa_cache_info_t attribute. NAME_LENGTH excludes the NUL (hsa.h: NAME is NAME_LENGTH + 1 bytes).
// kInvalidArgument (INVALID_CACHE) for an unknown handle or attribute.
absl::Status WriteCacheInfo(Runtime& runtime, uint64_t cache, uint32_t attribute, void* value);

// Writes one hsa_amd_agent_memory_pool_info_t attribute of (`agent`, `pool`), from the io_links of the KFD
// topology (ROCr's MemoryRegion::GetAgentPoolInfo and Runtime::GetLinkInfo):
//  - ACCESS: the owner, and system pools open to all, ALLOWED_BY_DEFAULT; another agent's GROUP pool, or VRAM the
//    agent has no path to, NEVER_ALLOWED; fine-grained VRAM of a GPU outside the agent's XGMI hive NEVER_ALLOWED;
//    other VRAM DISALLOWED_BY_DEFAULT (reachable after hsa_amd_agents_allow_access).
//  - NUM_LINK_HOPS: 0 for the owner, 1 over a direct io_link, 2 to system memory through another CPU node, 0
//    without a path (a peer GPU's VRAM with no XGMI or PCIe peer link: NEVER_ALLOWED).
//  - LINK_INFO: one hsa_amd_memory_pool_link_info_t per hop (NUM_LINK_HOPS of them): its type (XGMI, PCIe, ...),
//    latency and bandwidth, atomics and coherence from the link flags, and the KFD weight as NUMA distance.
// kInvalidArgument for another attribute.
absl::Status WriteLinkAgentPoolInfo(const Runtime& runtime, const Agent& agent,
                                    const MemoryPool& pool, uint32_t attribute, void* value);

// Whether HSA_XNACK=1 asks for XNACK (page-fault retry) mode, as ROCr reads it.
bool XnackEnabled();

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_AGENT_INFO_H_
