// hsa_* memory entry points: access grants, locking, pointer queries, deallocation notifiers and the HSA 1.0
// region API. Thin shells over the shared runtime's MemoryManager (memory.h) and memory_c_abi.h.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/memory.h"
#include "hsa/memory_c_abi.h"
#include "hsa/runtime.h"

using hipmem::Bytes;
using hipmem::DeviceAddress;
using hipmem::hsa::AgentId;
using hipmem::hsa::HostLock;
using hipmem::hsa::PoolId;
using hipmem::hsa::ToHsaStatus;

namespace {

std::vector<AgentId> AgentIds(const hsa_agent_t* agents, size_t count) {
  std::vector<AgentId> ids;
  ids.reserve(count);
  for (size_t i = 0; i < count; ++i) ids.push_back(AgentId(agents[i].handle));
  return ids;
}

}  // namespace

extern "C" {

hsa_status_t HSA_API hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t* agents,
                                                 const uint32_t* flags, const void* ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  // ROCr reserves `flags`: anything but NULL is refused.
  if (num_agents == 0 || agents == nullptr || flags != nullptr || ptr == nullptr) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return ToHsaStatus(rt.memory().AllowAccess(AgentIds(agents, num_agents), DeviceAddress::FromPointer(ptr)));
}

hsa_status_t HSA_API hsa_amd_memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent,
                                         void** agent_ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (host_ptr == nullptr || size == 0 || agent_ptr == nullptr || num_agent < 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // hsa_ext_amd.cpp hsa_amd_memory_lock(_to_pool): an agent list and its count come together or not at all.
  if ((agents != nullptr && num_agent == 0) || (agents == nullptr && num_agent != 0)) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  absl::StatusOr<HostLock> lock = rt.memory().Lock(
      host_ptr, Bytes(size), AgentIds(agents, agents == nullptr ? 0 : static_cast<size_t>(num_agent)), std::nullopt);
  if (!lock.ok()) return ToHsaStatus(lock.status());
  // The application owns the lock from here and ends it with hsa_amd_memory_unlock.
  *agent_ptr = std::move(*lock).Release().ToPointer();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_memory_lock_to_pool(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent,
                                                 hsa_amd_memory_pool_t pool, uint32_t flags, void** agent_ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (host_ptr == nullptr || size == 0 || agent_ptr == nullptr || flags != 0 || num_agent < 0) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  // hsa_ext_amd.cpp hsa_amd_memory_lock(_to_pool): an agent list and its count come together or not at all.
  if ((agents != nullptr && num_agent == 0) || (agents == nullptr && num_agent != 0)) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  absl::StatusOr<HostLock> lock =
      rt.memory().Lock(host_ptr, Bytes(size), AgentIds(agents, agents == nullptr ? 0 : static_cast<size_t>(num_agent)),
                       PoolId(pool.handle));
  if (!lock.ok()) return ToHsaStatus(lock.status());
  *agent_ptr = std::move(*lock).Release().ToPointer();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_memory_unlock(void* host_ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (host_ptr == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(rt.memory().Unlock(host_ptr));
}

hsa_status_t HSA_API hsa_amd_pointer_info(const void* ptr, hsa_amd_pointer_info_t* info, void* (*alloc)(size_t),
                                          uint32_t* num_agents_accessible, hsa_agent_t** accessible) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr || info == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // The agent list is all or nothing: both outputs and the allocator that makes the array.
  const bool want_agents = num_agents_accessible != nullptr || accessible != nullptr;
  if (want_agents && (num_agents_accessible == nullptr || accessible == nullptr || alloc == nullptr)) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  const hipmem::hsa::PointerDescription d = rt.memory().Describe(ptr);
  if (want_agents) {
    auto* array = static_cast<hsa_agent_t*>(alloc(sizeof(hsa_agent_t) * d.accessible.size()));
    if (array == nullptr && !d.accessible.empty()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    for (size_t i = 0; i < d.accessible.size(); ++i) array[i] = hsa_agent_t{d.accessible[i].raw()};
    *accessible = array;
    *num_agents_accessible = static_cast<uint32_t>(d.accessible.size());
  }
  hipmem::hsa::WritePointerInfo(d, info);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_pointer_info_set_userdata(const void* ptr, void* userdata) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(rt.memory().SetUserData(ptr, userdata));
}

hsa_status_t HSA_API hsa_amd_register_deallocation_callback(void* ptr, hsa_amd_deallocation_callback_t callback,
                                                            void* user_data) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr || callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(
      rt.memory().RegisterDeallocationCallback(DeviceAddress::FromPointer(ptr), callback, user_data));
}

hsa_status_t HSA_API hsa_amd_deregister_deallocation_callback(void* ptr, hsa_amd_deallocation_callback_t callback) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr || callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(rt.memory().DeregisterDeallocationCallback(DeviceAddress::FromPointer(ptr), callback));
}

// ---- HSA 1.0 regions: the same pools under hsa_region_t handles ----

hsa_status_t HSA_API hsa_agent_iterate_regions(hsa_agent_t agent, hsa_status_t (*callback)(hsa_region_t, void*),
                                               void* data) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<std::vector<PoolId>> regions = hipmem::hsa::RegionsOf(rt, AgentId(agent.handle));
  if (!regions.ok()) return ToHsaStatus(regions.status());
  for (PoolId region : *regions) {
    const hsa_status_t status = callback(hsa_region_t{region.raw()}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_region_get_info(hsa_region_t region, hsa_region_info_t attribute, void* value) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return ToHsaStatus(hipmem::hsa::WriteRegionInfo(rt, PoolId(region.handle), attribute, value));
}

hsa_status_t HSA_API hsa_memory_allocate(hsa_region_t region, size_t size, void** ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr || size == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<const hipmem::hsa::MemoryPool*> pool = rt.GetPool(PoolId(region.handle));
  if (!pool.ok()) return HSA_STATUS_ERROR_INVALID_REGION;
  absl::StatusOr<hipmem::hsa::PoolAllocation> allocation = rt.memory().AllocateUnrestricted(**pool, Bytes(size));
  if (!allocation.ok()) return ToHsaStatus(allocation.status());
  *ptr = std::move(*allocation).Release().ToPointer();  // the caller's from here: hsa_memory_free
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_memory_free(void* ptr) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr) return HSA_STATUS_SUCCESS;  // as free(NULL), and ROCr
  return ToHsaStatus(rt.Free(DeviceAddress::FromPointer(ptr)));
}

hsa_status_t HSA_API hsa_memory_assign_agent(void* ptr, hsa_agent_t agent, hsa_access_permission_t access) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (ptr == nullptr || access < HSA_ACCESS_PERMISSION_RO || access > HSA_ACCESS_PERMISSION_RW) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (absl::StatusOr<const hipmem::hsa::Agent*> a = rt.GetAgent(AgentId(agent.handle)); !a.ok()) {
    return ToHsaStatus(a.status());
  }
  // Ownership transfer only matters on hardware where a buffer lives with one agent at a time; ROCr's regions
  // accept it without work, once the pointer is known to be theirs.
  if (!rt.FindPointer(DeviceAddress::FromPointer(ptr)).has_value()) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  return HSA_STATUS_SUCCESS;
}

// Registration is a no-op in ROCr (every allocation is already visible to every agent that may use it); only
// the argument check remains.
hsa_status_t HSA_API hsa_memory_register(void* ptr, size_t size) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  return (size == 0 && ptr != nullptr) ? HSA_STATUS_ERROR_INVALID_ARGUMENT : HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_memory_deregister(void* ptr, size_t size) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  (void)ptr;
  (void)size;
  return HSA_STATUS_SUCCESS;
}

}  // extern "C"
