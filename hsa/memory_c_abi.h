// C struct writers of the memory entry points: the HSA 1.0 region view of the pools and
// hsa_amd_pointer_info_t.
//
// Plays the region half of ROCr's AMD::MemoryRegion::GetInfo and the struct filling of Runtime::PtrInfo. Kept
// out of the entry points (hsa_memory_c_api.cc) so those stay thin shells. Thread-safe (stateless).
#ifndef HIPMEM_HSA_MEMORY_C_ABI_H_
#define HIPMEM_HSA_MEMORY_C_ABI_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/memory.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

// The regions hsa_agent_iterate_regions reports for `agent`, in order: its own pools, then, for a GPU, the
// system pools of the CPU agents (ROCr's GPU agents expose the system regions too, which is how HSA 1.0
// clients find the kernarg region from a kernel agent). INVALID_AGENT for an unknown agent.
absl::StatusOr<std::vector<PoolId>> RegionsOf(const Runtime& runtime, AgentId agent);

// Writes one hsa_region_info_t / hsa_amd_region_info_t attribute in the C type the header gives it.
// INVALID_REGION (kInvalidArgument) for an unknown region; kInvalidArgument for an unknown attribute.
absl::Status WriteRegionInfo(Runtime& runtime, PoolId region, uint32_t attribute, void* value);

// Fills the first info->size bytes of `info` (at most sizeof(hsa_amd_pointer_info_t)) and lowers info->size
// to what was written, as ROCr does for callers built against an older header.
void WritePointerInfo(const PointerDescription& d, hsa_amd_pointer_info_t* info);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_MEMORY_C_ABI_H_
