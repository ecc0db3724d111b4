// System events: GPU memory faults delivered to the handlers hsa_amd_register_system_event_handler installs.
//
// Plays ROCr's VM fault path (Runtime's vm_fault_event_, an HSA_EVENTTYPE_MEMORY KFD event, and
// VMFaultHandler with its system_event_handlers_ list): a thread sleeps in AMDKFD_IOC_WAIT_EVENTS on a KFD
// MEMORY event; when a GPU of the process takes a VM fault the kernel fills in the fault (node, page, reason
// bits) and sets the event, and the thread calls every registered handler with the faulting agent, the
// address and ROCr's fault reason mask. The thread also waits on a private SIGNAL event, set only to stop it,
// so it never polls. Thread-safe.
#ifndef HIPMEM_HSA_SYSTEM_EVENTS_H_
#define HIPMEM_HSA_SYSTEM_EVENTS_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {

// hsa_amd_memory_fault_reason_t bits.
inline constexpr uint32_t kFaultPageNotPresent = 1u << 0;
inline constexpr uint32_t kFaultReadOnly = 1u << 1;
inline constexpr uint32_t kFaultNoExecute = 1u << 2;
inline constexpr uint32_t kFaultHostOnly = 1u << 3;
inline constexpr uint32_t kFaultDramEcc = 1u << 4;
inline constexpr uint32_t kFaultImprecise = 1u << 5;
inline constexpr uint32_t kFaultSramEcc = 1u << 6;
inline constexpr uint32_t kFaultHang = 1u << 31;  // GPU reset after a hang

// hsa_amd_gpu_memory_fault_info_t.
struct GpuMemoryFault {
  AgentId agent;
  uint64_t virtual_address;
  uint32_t reason_mask;  // kFault* bits
};

class SystemEvents {
 public:
  // Called on the event thread for each GPU memory fault.
  using FaultHandler = std::function<void(const GpuMemoryFault& fault)>;

  // Creates the two KFD events and starts the thread. `runtime` must outlive the result. Errors: the KFD's
  // (event creation).
  static absl::StatusOr<std::unique_ptr<SystemEvents>> Create(Runtime& runtime);
  // Stops and joins the thread (a handler running finishes first), then destroys the events.
  ~SystemEvents();
  SystemEvents(const SystemEvents&) = delete;
  SystemEvents& operator=(const SystemEvents&) = delete;

  // hsa_amd_register_system_event_handler: adds `handler` after the ones registered before (ROCr keeps them
  // all and calls them in order). Errors: kInvalidArgument for an empty handler.
  absl::Status Register(FaultHandler handler);

  // Faults delivered so far (handlers or not).
  uint64_t fault_count() const;

 private:
  // The KFD events and the thread that waits on them: system_events.cc alone sees the thunk.
  class Impl;
  explicit SystemEvents(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SYSTEM_EVENTS_H_
