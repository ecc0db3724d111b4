// hsa_* C entry points for ISAs, caches and wavefronts: thin shells over agent_info.h and topology.h.
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/statusor.h"
#include "hsa/agent_info.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_status.h"
#include "hsa/topology.h"

using hipmem::hsa::AgentId;
using hipmem::hsa::ToHsaStatus;

namespace {

// Calls `callback` with each handle until it returns anything but success, which is then returned.
template <typename Handle>
hsa_status_t Iterate(const absl::StatusOr<std::vector<uint64_t>>& handles, hsa_status_t (*callback)(Handle, void*),
                     void* data) {
  if (!handles.ok()) return ToHsaStatus(handles.status());
  for (uint64_t h : *handles) {
    const hsa_status_t status = callback(Handle{h}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

bool ValidProfile(hsa_profile_t profile) { return profile == HSA_PROFILE_BASE || profile == HSA_PROFILE_FULL; }

}  // namespace

extern "C" {

hsa_status_t HSA_API hsa_isa_from_name(const char* name, hsa_isa_t* isa) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (name == nullptr || isa == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::IsaDescription> parsed = hipmem::hsa::ParseIsaName(name);
  if (!parsed.ok()) return ToHsaStatus(parsed.status());
  isa->handle = hipmem::hsa::InternIsa(*parsed);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*callback)(hsa_isa_t, void*),
                                            void* data) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return Iterate(hipmem::hsa::AgentIsaHandles(rt, AgentId(agent.handle)), callback, data);
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attribute, uint32_t index,
                                                     void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;  // one call convention
  return ToHsaStatus(hipmem::hsa::WriteIsaInfo(isa.handle, attribute, value));
}

hsa_status_t HSA_API hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(hipmem::hsa::WriteIsaInfo(isa.handle, attribute, value));
}

hsa_status_t HSA_API hsa_isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t profile, uint16_t* mask) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (!ValidProfile(profile) || mask == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::IsaDescription> found = hipmem::hsa::LookupIsa(isa.handle);
  if (!found.ok()) return ToHsaStatus(found.status());
  *mask = 0;  // no exception policy is supported, as ROCr answers
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_agent_get_exception_policies(hsa_agent_t agent, hsa_profile_t profile,
                                                                     uint16_t* mask) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (!ValidProfile(profile) || mask == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<const hipmem::hsa::Agent*> a = rt.GetAgent(AgentId(agent.handle));
  if (!a.ok()) return ToHsaStatus(a.status());
  *mask = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t fp_type, hsa_flush_mode_t flush_mode,
                                              hsa_round_method_t* round_method) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  const bool valid_type = fp_type == HSA_FP_TYPE_16 || fp_type == HSA_FP_TYPE_32 || fp_type == HSA_FP_TYPE_64;
  const bool valid_mode = flush_mode == HSA_FLUSH_MODE_FTZ || flush_mode == HSA_FLUSH_MODE_NON_FTZ;
  if (!valid_type || !valid_mode || round_method == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::IsaDescription> found = hipmem::hsa::LookupIsa(isa.handle);
  if (!found.ok()) return ToHsaStatus(found.status());
  *round_method = HSA_ROUND_METHOD_SINGLE;  // AMDGPU FMA rounds once, in every mode
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_isa_iterate_wavefronts(hsa_isa_t isa, hsa_status_t (*callback)(hsa_wavefront_t, void*),
                                                void* data) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return Iterate(hipmem::hsa::IsaWavefrontHandles(isa.handle), callback, data);
}

hsa_status_t HSA_API hsa_wavefront_get_info(hsa_wavefront_t wavefront, hsa_wavefront_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(hipmem::hsa::WriteWavefrontInfo(wavefront.handle, attribute, value));
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_isa_compatible(hsa_isa_t code_object_isa, hsa_isa_t agent_isa,
                                                       bool* result) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<bool> compatible = hipmem::hsa::IsaCompatible(code_object_isa.handle, agent_isa.handle);
  if (!compatible.ok()) return ToHsaStatus(compatible.status());
  *result = *compatible;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_agent_iterate_caches(hsa_agent_t agent, hsa_status_t (*callback)(hsa_cache_t, void*),
                                              void* data) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return Iterate(hipmem::hsa::AgentCacheHandles(rt, AgentId(agent.handle)), callback, data);
}

hsa_status_t HSA_API hsa_cache_get_info(hsa_cache_t cache, hsa_cache_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(hipmem::hsa::WriteCacheInfo(rt, cache.handle, attribute, value));
}

}  // extern "C"
