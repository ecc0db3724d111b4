// hsa_* C entry points: thin shells over the shared hsa::Runtime (c_abi.h).
#include <cstddef>

#include "absl/status/statusor.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"

using hipmem::Bytes;
using hipmem::DeviceAddress;
using hipmem::hsa::AgentId;
using hipmem::hsa::PoolAllocFlags;
using hipmem::hsa::PoolId;
using hipmem::hsa::Runtime;
using hipmem::hsa::ToHsaStatus;

extern "C" {

hsa_status_t HSA_API hsa_init(void) {
  // ROCr's Runtime::Acquire answers OUT_OF_RESOURCES for whatever made the first load fail (the KFD's open, its
  // setup ioctls, the topology), whichever code the layer below gave.
  return hipmem::hsa::AcquireSharedRuntime().ok() ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

hsa_status_t HSA_API hsa_shut_down(void) { return ToHsaStatus(hipmem::hsa::ReleaseSharedRuntime()); }

hsa_status_t HSA_API hsa_status_string(hsa_status_t status, const char** status_string) {
  if (status_string == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const absl::string_view name = hipmem::hsa::HsaStatusName(status);
  if (name == hipmem::hsa::HsaStatusName(static_cast<hsa_status_t>(-1))) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *status_string = name.data();  // the adapter's names are NUL-terminated literals
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_system_get_info(hsa_system_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(hipmem::hsa::WriteSystemInfo(attribute, value));
}

hsa_status_t HSA_API hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t agent, void* data), void* data) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const hipmem::hsa::Agent& agent : rt.agents()) {
    const hsa_status_t status = callback(hsa_agent_t{agent.id.raw()}, data);
    if (status != HSA_STATUS_SUCCESS) return status;  // INFO_BREAK included, as ROCr does
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(hipmem::hsa::WriteAgentInfo(rt, AgentId(agent.handle), attribute, value));
}

hsa_status_t HSA_API hsa_amd_agent_iterate_memory_pools(hsa_agent_t agent,
                                                        hsa_status_t (*callback)(hsa_amd_memory_pool_t, void*),
                                                        void* data) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<const hipmem::hsa::Agent*> a = rt.GetAgent(AgentId(agent.handle));
  if (!a.ok()) return ToHsaStatus(a.status());
  for (PoolId pool : (*a)->pools) {
    const hsa_status_t status = callback(hsa_amd_memory_pool_t{pool.raw()}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t memory_pool,
                                                  hsa_amd_memory_pool_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(hipmem::hsa::WritePoolInfo(rt, PoolId(memory_pool.handle), attribute, value));
}

hsa_status_t HSA_API hsa_amd_agent_memory_pool_get_info(hsa_agent_t agent, hsa_amd_memory_pool_t memory_pool,
                                                        hsa_amd_agent_memory_pool_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(
      hipmem::hsa::WriteAgentPoolInfo(rt, AgentId(agent.handle), PoolId(memory_pool.handle), attribute, value));
}

hsa_status_t HSA_API hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t memory_pool, size_t size, uint32_t flags,
                                                  void** ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr || size == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::PoolAllocation> allocation =
      rt.Allocate(PoolId(memory_pool.handle), Bytes(size), static_cast<PoolAllocFlags>(flags));
  if (!allocation.ok()) return ToHsaStatus(allocation.status());
  *ptr = std::move(*allocation).Release().ToPointer();  // the caller's from here: hsa_amd_memory_pool_free
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_memory_pool_free(void* ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr) return HSA_STATUS_SUCCESS;  // Runtime::FreeMemory(nullptr) succeeds upstream
  return ToHsaStatus(rt.Free(DeviceAddress::FromPointer(ptr)));
}

hsa_status_t HSA_API hsa_memory_copy(void* dst, const void* src, size_t size) {
  absl::StatusOr<hipmem::hsa::Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return ToHsaStatus(copies.status());
  return ToHsaStatus((*copies)->CopySync(DeviceAddress::FromPointer(dst), DeviceAddress::FromPointer(src), Bytes(size)));
}

}  // extern "C"
