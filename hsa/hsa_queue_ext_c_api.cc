// hsa_soft_queue_create, and the AMD queue extensions: hsa_amd_queue_get_info, counted queues and dispatch
// profiling (hsa_amd_profiling_set_profiler_enabled,
// hsa_amd_profiling_get_dispatch_time). Thin shells over hsa::Queues (queue.h) and GetDispatchTime
// (dispatch_profiling.h); the one switch here writes each queue attribute in the C type hsa_ext_amd.h gives it.
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hsa/c_abi.h"
#include "hsa/dispatch_profiling.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/queue.h"
#include "hsa/signal.h"
#include "hsa/signal_runtime.h"

namespace hipmem::hsa {
namespace {

// HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_*_VERSION_*: ROCr answers 0xFF ("unsupported") for a queue without
// a metadata-prefetch ring, which it creates only for gfx12.5 agents; no preset is one.
constexpr uint8_t kNoMetadataVersion = 0xFF;

const AmdQueue* Amd(const hsa_queue_t* queue) { return reinterpret_cast<const AmdQueue*>(queue); }

// Writes `attribute` of `info` into `value` in its documented C type. kInvalidArgument for an attribute
// this runtime does not answer (ROCr's AqlQueue::GetInfo default).
absl::Status WriteQueueInfo(const Queues::Info& info, hsa_queue_info_attribute_t attribute, void* value) {
  switch (static_cast<int>(attribute)) {
    case HSA_AMD_QUEUE_INFO_AGENT:
      *static_cast<hsa_agent_t*>(value) = hsa_agent_t{info.agent.raw()};
      return absl::OkStatus();
    case HSA_AMD_QUEUE_INFO_DOORBELL_ID:
      *static_cast<uint64_t*>(value) = info.doorbell_address;
      return absl::OkStatus();
    case HSA_QUEUE_INFO_USE_COUNT:
      // ROCr: UINT32_MAX for a queue that hsa_amd_counted_queue_acquire did not hand out.
      *static_cast<uint32_t*>(value) = info.use_count.value_or(UINT32_MAX);
      return absl::OkStatus();
    case HSA_QUEUE_INFO_HW_ID:
      // ROCr answers the hsa_queue_t id, truncated to 32 bits.
      *static_cast<uint32_t*>(value) = static_cast<uint32_t>(info.hw_id);
      return absl::OkStatus();
    case HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_DISPATCH_PKT_VERSION_MAJOR:
    case HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_DISPATCH_PKT_VERSION_MINOR:
    case HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_BARRIER_PKT_VERSION_MAJOR:
    case HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_BARRIER_PKT_VERSION_MINOR:
      *static_cast<uint8_t*>(value) = kNoMetadataVersion;
      return absl::OkStatus();
    case HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_RING_BUFFER:
      // No metadata ring: a null base, which CLR and rocrtst read as "not supported on this device".
      *static_cast<uint64_t*>(value) = 0;
      return absl::OkStatus();
    default:
      // HSA_AMD_QUEUE_INFO_PROPERTIES among them: the ROCr sources available to us define no answer for it
      // on a GPU AQL queue (AqlQueue::GetInfo falls to its default), so it is refused the same way.
      return absl::InvalidArgumentError(
          absl::StrCat("hsa_amd_queue_get_info: attribute ", static_cast<int>(attribute), " is not answered"));
  }
}

}  // namespace
}  // namespace hipmem::hsa

extern "C" {

hsa_status_t HSA_API hsa_soft_queue_create(hsa_region_t region, uint32_t size, hsa_queue_type32_t type,
                                           uint32_t features, hsa_signal_t doorbell_signal, hsa_queue_t** queue) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  // ROCr's argument checks come before it looks at the region or the signal.
  if (queue == nullptr || region.handle == 0 || doorbell_signal.handle == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::AmdQueue*> created =
      (*queues)->CreateSoft({.region = hipmem::hsa::PoolId(region.handle),
                             .size = size,
                             .kind = static_cast<hipmem::hsa::QueueKind>(type),
                             .features = features,
                             .doorbell = hipmem::hsa::SignalHandle(doorbell_signal.handle)});
  if (!created.ok()) return hipmem::hsa::ToHsaStatus(created.status());
  *queue = reinterpret_cast<hsa_queue_t*>(*created);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_counted_queue_acquire(hsa_agent_t agent, hsa_queue_type_t type,
                                                   hsa_amd_queue_priority_t priority,
                                                   void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                                   uint64_t flags, hsa_queue_t** queue) {
  // `flags` are hsa_amd_queue_create's, which ROCr forwards to the hardware queue's creation; hipmem's queue
  // creation takes none, so they are accepted and ignored.
  (void)flags;
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hipmem::hsa::QueueErrorCallback on_error;
  if (callback != nullptr) {
    on_error = [callback, data](const absl::Status& error, hipmem::hsa::AmdQueue* amd) {
      callback(hipmem::hsa::ToHsaStatus(error), reinterpret_cast<hsa_queue_t*>(amd), data);
    };
  }
  absl::StatusOr<hipmem::hsa::AmdQueue*> acquired =
      (*queues)->AcquireCounted({.agent = hipmem::hsa::AgentId(agent.handle),
                                 .kind = static_cast<hipmem::hsa::QueueKind>(type),
                                 .priority = static_cast<hipmem::hsa::QueuePriorityLevel>(priority),
                                 .on_error = std::move(on_error)});
  if (!acquired.ok()) return hipmem::hsa::ToHsaStatus(acquired.status());
  *queue = reinterpret_cast<hsa_queue_t*>(*acquired);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_amd_counted_queue_release(hsa_queue_t* queue) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hipmem::hsa::ToHsaStatus((*queues)->ReleaseCounted(hipmem::hsa::Amd(queue)));
}

hsa_status_t hsa_amd_queue_get_info(hsa_queue_t* queue, hsa_queue_info_attribute_t attribute, void* value) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::Queues::Info> info = (*queues)->GetInfo(hipmem::hsa::Amd(queue));
  if (!info.ok()) return hipmem::hsa::ToHsaStatus(info.status());
  return hipmem::hsa::ToHsaStatus(hipmem::hsa::WriteQueueInfo(*info, attribute, value));
}

hsa_status_t HSA_API hsa_amd_profiling_set_profiler_enabled(hsa_queue_t* queue, int enable) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_QUEUE;
  return hipmem::hsa::ToHsaStatus((*queues)->SetProfiling(hipmem::hsa::Amd(queue), enable != 0));
}

hsa_status_t HSA_API hsa_amd_profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                                         hsa_amd_profiling_dispatch_time_t* time) {
  HSA_RUNTIME_OR_RETURN(runtime);
  absl::StatusOr<hipmem::hsa::Copies*> copies = hipmem::hsa::SharedCopies();
  if (!copies.ok()) return hipmem::hsa::ToHsaStatus(copies.status());
  absl::StatusOr<hipmem::hsa::SignalRuntime*> signals = hipmem::hsa::SharedSignals();
  if (!signals.ok()) return hipmem::hsa::ToHsaStatus(signals.status());
  if (time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  absl::StatusOr<hipmem::hsa::SignalRef> ref = (*signals)->Find(hipmem::hsa::SignalHandle(signal.handle));
  if (!ref.ok()) return hipmem::hsa::ToHsaStatus(ref.status());
  absl::StatusOr<hipmem::hsa::DispatchTime> t =
      hipmem::hsa::GetDispatchTime(runtime, **copies, hipmem::hsa::AgentId(agent.handle), *ref);
  if (!t.ok()) return hipmem::hsa::ToHsaStatus(t.status());
  time->start = t->start;
  time->end = t->end;
  return HSA_STATUS_SUCCESS;
}

}  // extern "C"
