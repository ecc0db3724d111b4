// hsa_amd_register_system_event_handler: a thin shell over hsa::SystemEvents (system_events.h). The callback
// gets HSA_AMD_GPU_MEMORY_FAULT_EVENT with the faulting agent, address and reason bits; its return value is
// ignored, as ROCr only checks it to decide whether to abort.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/system_events.h"

namespace hipmem::hsa {
namespace {

constexpr uint32_t U(hsa_amd_memory_fault_reason_t r) { return static_cast<uint32_t>(r); }
static_assert(U(HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT) == kFaultPageNotPresent);
static_assert(U(HSA_AMD_MEMORY_FAULT_READ_ONLY) == kFaultReadOnly && U(HSA_AMD_MEMORY_FAULT_NX) == kFaultNoExecute);
static_assert(U(HSA_AMD_MEMORY_FAULT_HOST_ONLY) == kFaultHostOnly && U(HSA_AMD_MEMORY_FAULT_DRAMECC) == kFaultDramEcc);
static_assert(U(HSA_AMD_MEMORY_FAULT_IMPRECISE) == kFaultImprecise && U(HSA_AMD_MEMORY_FAULT_SRAMECC) == kFaultSramEcc);
static_assert(U(HSA_AMD_MEMORY_FAULT_HANG) == kFaultHang);

}  // namespace
}  // namespace hipmem::hsa

extern "C" {

hsa_status_t HSA_API hsa_amd_register_system_event_handler(hsa_amd_system_event_callback_t callback, void* data) {
  absl::StatusOr<hipmem::hsa::SystemEvents*> events = hipmem::hsa::SharedSystemEvents();
  if (!events.ok()) return hipmem::hsa::ToHsaStatus(events.status());
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hipmem::hsa::ToHsaStatus((*events)->Register([callback, data](const hipmem::hsa::GpuMemoryFault& fault) {
    hsa_amd_event_t event{};
    event.event_type = HSA_AMD_GPU_MEMORY_FAULT_EVENT;
    event.memory_fault.agent = hsa_agent_t{fault.agent.raw()};
    event.memory_fault.virtual_address = fault.virtual_address;
    event.memory_fault.fault_reason_mask = fault.reason_mask;
    (void)callback(&event, data);
  }));
}

}  // extern "C"
