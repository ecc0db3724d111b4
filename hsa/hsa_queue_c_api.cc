// hsa_queue_*: thin shells over hsa::Queues (queue.h). The index operations act on the amd_queue_t behind the
// hsa_queue_t, as ROCr's do, without a lookup.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/queue.h"

namespace hipmem::hsa {
namespace {

// The hsa_queue_t at the start of our amd_queue_t is upstream's.
static_assert(sizeof(hsa_queue_t) == 40);
static_assert(offsetof(hsa_queue_t, base_address) == offsetof(AmdQueue, base_address));
static_assert(offsetof(hsa_queue_t, doorbell_signal) == offsetof(AmdQueue, doorbell_signal));
static_assert(offsetof(hsa_queue_t, size) == offsetof(AmdQueue, size));
static_assert(offsetof(hsa_queue_t, id) == offsetof(AmdQueue, id));
static_assert(HSA_QUEUE_TYPE_MULTI == static_cast<int>(QueueKind::kMulti));
static_assert(HSA_QUEUE_TYPE_SINGLE == static_cast<int>(QueueKind::kSingle));
static_assert(HSA_QUEUE_TYPE_COOPERATIVE == static_cast<int>(QueueKind::kCooperative));

AmdQueue& Amd(const hsa_queue_t* queue) {
  return *reinterpret_cast<AmdQueue*>(const_cast<hsa_queue_t*>(queue));
}

constexpr MemoryOrder kRelaxed = MemoryOrder::kRelaxed;
constexpr MemoryOrder kAcquire = MemoryOrder::kAcquire;
constexpr MemoryOrder kRelease = MemoryOrder::kRelease;
constexpr MemoryOrder kAcqRel = MemoryOrder::kAcqRel;

}  // namespace
}  // namespace hipmem::hsa

using hipmem::hsa::Amd;
using hipmem::hsa::kAcqRel;
using hipmem::hsa::kAcquire;
using hipmem::hsa::kRelaxed;
using hipmem::hsa::kRelease;

extern "C" {

hsa_status_t HSA_API hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                      void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                      uint32_t private_segment_size, uint32_t group_segment_size,
                                      hsa_queue_t** queue) {
  // Nothing is reserved up front: a queue starts without scratch and gets it on demand when a dispatch needs it
  // (ROCr's dynamic scratch, Queues::AqlQueue::GrowScratch), and group memory is per dispatch; so the two sizes
  // (UINT32_MAX = the agent's default) are accepted as hints.
  (void)private_segment_size;
  (void)group_segment_size;
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hipmem::hsa::QueueErrorCallback on_error;
  if (callback != nullptr) {
    on_error = [callback, data](const absl::Status& error, hipmem::hsa::AmdQueue* amd) {
      callback(hipmem::hsa::ToHsaStatus(error), reinterpret_cast<hsa_queue_t*>(amd), data);
    };
  }
  absl::StatusOr<hipmem::hsa::AmdQueue*> created =
      (*queues)->Create({.agent = hipmem::hsa::AgentId(agent.handle),
                         .size = size,
                         .kind = static_cast<hipmem::hsa::QueueKind>(type),
                         .on_error = std::move(on_error)});
  if (!created.ok()) return hipmem::hsa::ToHsaStatus(created.status());
  *queue = reinterpret_cast<hsa_queue_t*>(*created);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_queue_destroy(hsa_queue_t* queue) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hipmem::hsa::ToHsaStatus((*queues)->Destroy(&Amd(queue)));
}

hsa_status_t HSA_API hsa_queue_inactivate(hsa_queue_t* queue) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hipmem::hsa::ToHsaStatus((*queues)->Inactivate(&Amd(queue)));
}

hsa_status_t HSA_API hsa_amd_queue_cu_set_mask(const hsa_queue_t* queue, uint32_t num_cu_mask_count,
                                               const uint32_t* cu_mask) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  // ROCr: the count is in bits and a whole number of 32-bit words.
  if (queue == nullptr || cu_mask == nullptr || num_cu_mask_count == 0 || num_cu_mask_count % 32 != 0) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return hipmem::hsa::ToHsaStatus(
      (*queues)->SetCuMask(&Amd(queue), std::span<const uint32_t>(cu_mask, num_cu_mask_count / 32)));
}

hsa_status_t HSA_API hsa_amd_queue_cu_get_mask(const hsa_queue_t* queue, uint32_t num_cu_mask_count,
                                               uint32_t* cu_mask) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr || cu_mask == nullptr || num_cu_mask_count == 0 || num_cu_mask_count % 32 != 0) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return hipmem::hsa::ToHsaStatus((*queues)->GetCuMask(&Amd(queue), std::span<uint32_t>(cu_mask, num_cu_mask_count / 32)));
}

hsa_status_t HSA_API hsa_amd_queue_set_priority(hsa_queue_t* queue, hsa_amd_queue_priority_t priority) {
  absl::StatusOr<hipmem::hsa::Queues*> queues = hipmem::hsa::SharedQueues();
  if (!queues.ok()) return hipmem::hsa::ToHsaStatus(queues.status());
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hipmem::hsa::ToHsaStatus(
      (*queues)->SetPriority(&Amd(queue), static_cast<hipmem::hsa::QueuePriorityLevel>(priority)));
}

uint64_t HSA_API hsa_queue_load_read_index_scacquire(const hsa_queue_t* q) {
  return hipmem::hsa::LoadReadIndex(Amd(q), kAcquire);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_load_read_index_acquire(const hsa_queue_t* q) {
  return hipmem::hsa::LoadReadIndex(Amd(q), kAcquire);
}
uint64_t HSA_API hsa_queue_load_read_index_relaxed(const hsa_queue_t* q) {
  return hipmem::hsa::LoadReadIndex(Amd(q), kRelaxed);
}
uint64_t HSA_API hsa_queue_load_write_index_scacquire(const hsa_queue_t* q) {
  return hipmem::hsa::LoadWriteIndex(Amd(q), kAcquire);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_load_write_index_acquire(const hsa_queue_t* q) {
  return hipmem::hsa::LoadWriteIndex(Amd(q), kAcquire);
}
uint64_t HSA_API hsa_queue_load_write_index_relaxed(const hsa_queue_t* q) {
  return hipmem::hsa::LoadWriteIndex(Amd(q), kRelaxed);
}
void HSA_API hsa_queue_store_write_index_relaxed(const hsa_queue_t* q, uint64_t v) {
  hipmem::hsa::StoreWriteIndex(Amd(q), v, kRelaxed);
}
void HSA_API HSA_DEPRECATED hsa_queue_store_write_index_release(const hsa_queue_t* q, uint64_t v) {
  hipmem::hsa::StoreWriteIndex(Amd(q), v, kRelease);
}
void HSA_API hsa_queue_store_write_index_screlease(const hsa_queue_t* q, uint64_t v) {
  hipmem::hsa::StoreWriteIndex(Amd(q), v, kRelease);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_acq_rel(const hsa_queue_t* q, uint64_t e, uint64_t v) {
  return hipmem::hsa::CasWriteIndex(Amd(q), e, v, kAcqRel);
}
uint64_t HSA_API hsa_queue_cas_write_index_scacq_screl(const hsa_queue_t* q, uint64_t e, uint64_t v) {
  return hipmem::hsa::CasWriteIndex(Amd(q), e, v, kAcqRel);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_acquire(const hsa_queue_t* q, uint64_t e, uint64_t v) {
  return hipmem::hsa::CasWriteIndex(Amd(q), e, v, kAcquire);
}
uint64_t HSA_API hsa_queue_cas_write_index_scacquire(const hsa_queue_t* q, uint64_t e, uint64_t v) {
  return hipmem::hsa::CasWriteIndex(Amd(q), e, v, kAcquire);
}
uint64_t HSA_API hsa_queue_cas_write_index_relaxed(const hsa_queue_t* q, uint64_t e, uint64_t v) {
  return hipmem::hsa::CasWriteIndex(Amd(q), e, v, kRelaxed);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_release(const hsa_queue_t* q, uint64_t e, uint64_t v) {
  return hipmem::hsa::CasWriteIndex(Amd(q), e, v, kRelease);
}
uint64_t HSA_API hsa_queue_cas_write_index_screlease(const hsa_queue_t* q, uint64_t e, uint64_t v) {
  return hipmem::hsa::CasWriteIndex(Amd(q), e, v, kRelease);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_add_write_index_acq_rel(const hsa_queue_t* q, uint64_t v) {
  return hipmem::hsa::AddWriteIndex(Amd(q), v, kAcqRel);
}
uint64_t HSA_API hsa_queue_add_write_index_scacq_screl(const hsa_queue_t* q, uint64_t v) {
  return hipmem::hsa::AddWriteIndex(Amd(q), v, kAcqRel);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_add_write_index_acquire(const hsa_queue_t* q, uint64_t v) {
  return hipmem::hsa::AddWriteIndex(Amd(q), v, kAcquire);
}
uint64_t HSA_API hsa_queue_add_write_index_scacquire(const hsa_queue_t* q, uint64_t v) {
  return hipmem::hsa::AddWriteIndex(Amd(q), v, kAcquire);
}
uint64_t HSA_API hsa_queue_add_write_index_relaxed(const hsa_queue_t* q, uint64_t v) {
  return hipmem::hsa::AddWriteIndex(Amd(q), v, kRelaxed);
}
uint64_t HSA_API HSA_DEPRECATED hsa_queue_add_write_index_release(const hsa_queue_t* q, uint64_t v) {
  return hipmem::hsa::AddWriteIndex(Amd(q), v, kRelease);
}
uint64_t HSA_API hsa_queue_add_write_index_screlease(const hsa_queue_t* q, uint64_t v) {
  return hipmem::hsa::AddWriteIndex(Amd(q), v, kRelease);
}
void HSA_API hsa_queue_store_read_index_relaxed(const hsa_queue_t* q, uint64_t v) {
  hipmem::hsa::StoreReadIndex(Amd(q), v, kRelaxed);
}
void HSA_API HSA_DEPRECATED hsa_queue_store_read_index_release(const hsa_queue_t* q, uint64_t v) {
  hipmem::hsa::StoreReadIndex(Amd(q), v, kRelease);
}
void HSA_API hsa_queue_store_read_index_screlease(const hsa_queue_t* q, uint64_t v) {
  hipmem::hsa::StoreReadIndex(Amd(q), v, kRelease);
}

}  // extern "C"
