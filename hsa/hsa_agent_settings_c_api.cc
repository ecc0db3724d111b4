// hsa_amd_* entry points that tune a GPU agent: thin shells over agent_settings.h, with ROCr's checks in ROCr's
// order (NOT_INITIALIZED, then the agent, then the arguments, then GPU-only).
#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "hsa/agent_settings.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"

using hipmem::hsa::AgentId;
using hipmem::hsa::Coherency;
using hipmem::hsa::DeviceType;
using hipmem::hsa::ToHsaStatus;

namespace {

// The agent behind `handle`, or the status ROCr gives for a handle that is not one (INVALID_AGENT).
absl::StatusOr<const hipmem::hsa::Agent*> LookUp(hipmem::hsa::Runtime& rt, hsa_agent_t handle) {
  return rt.GetAgent(AgentId(handle.handle));
}

}  // namespace

extern "C" {

hsa_status_t HSA_API hsa_amd_coherency_get_type(hsa_agent_t agent, hsa_amd_coherency_type_t* type) {
  HSA_RUNTIME_OR_RETURN(rt);
  absl::StatusOr<const hipmem::hsa::Agent*> a = LookUp(rt, agent);
  if (!a.ok()) return ToHsaStatus(a.status());
  if (type == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::AgentSettings*> settings = hipmem::hsa::SharedAgentSettings();
  if (!settings.ok()) return ToHsaStatus(settings.status());
  absl::StatusOr<Coherency> coherency = (*settings)->GetCoherency((*a)->id);
  if (!coherency.ok()) return ToHsaStatus(coherency.status());  // a CPU agent: INVALID_AGENT
  *type = static_cast<hsa_amd_coherency_type_t>(*coherency);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_coherency_set_type(hsa_agent_t agent, hsa_amd_coherency_type_t type) {
  HSA_RUNTIME_OR_RETURN(rt);
  absl::StatusOr<const hipmem::hsa::Agent*> a = LookUp(rt, agent);
  if (!a.ok()) return ToHsaStatus(a.status());
  if (type != HSA_AMD_COHERENCY_TYPE_COHERENT && type != HSA_AMD_COHERENCY_TYPE_NONCOHERENT) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  absl::StatusOr<hipmem::hsa::AgentSettings*> settings = hipmem::hsa::SharedAgentSettings();
  if (!settings.ok()) return ToHsaStatus(settings.status());
  return ToHsaStatus((*settings)->SetCoherency((*a)->id, static_cast<Coherency>(type)));
}

hsa_status_t HSA_API hsa_amd_agent_set_async_scratch_limit(hsa_agent_t agent, size_t threshold) {
  (void)threshold;
  HSA_RUNTIME_OR_RETURN(rt);
  absl::StatusOr<const hipmem::hsa::Agent*> a = LookUp(rt, agent);
  if (!a.ok()) return ToHsaStatus(a.status());
  if ((*a)->type != DeviceType::kGpu) return HSA_STATUS_ERROR_INVALID_AGENT;
  // ROCr's answer when asynchronous scratch reclaim is off for the GPU: each queue's scratch is its own allocation,
  // sized when a dispatch asks and kept until the queue goes (hsa/queue.cc), so there is nothing to reclaim and no
  // threshold to set.
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t HSA_API hsa_amd_agent_preload(hsa_agent_t agent, uint64_t flags) {
  HSA_RUNTIME_OR_RETURN(rt);
  absl::StatusOr<const hipmem::hsa::Agent*> a = LookUp(rt, agent);
  if (!a.ok()) return ToHsaStatus(a.status());
  if ((*a)->type != DeviceType::kGpu) return HSA_STATUS_ERROR_INVALID_AGENT;
  constexpr uint64_t kKnownFlags = HSA_AMD_AGENT_PRELOAD_SKIP_CLOCK_SYNC | HSA_AMD_AGENT_PRELOAD_SKIP_BLITS;
  if ((flags & ~kKnownFlags) != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // What ROCr loads lazily -- the blit queues and the GPU/system clock pair -- hipmem's hsa_init already set up
  // for every GPU (the copy engines and their queues exist from the start), so there is nothing left to load.
  return HSA_STATUS_SUCCESS;
}

}  // extern "C"
