// hsaKmt* C entry points for queues: thin shells over thunk/queues.h on the shared thunk::Kfd.
//
// HSA_QUEUEID is, as upstream, the address of the library's record of the queue (here a heap-allocated
// thunk::Queue). Every id handed out is remembered until hsaKmtDestroyQueue or the last hsaKmtCloseKFD, so
// an id this library did not hand out, has destroyed already, or that belonged to a closed KFD answers
// INVALID_PARAMETER without being dereferenced.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "base/units.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_live_queues.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/queues.h"
#include "thunk/shared_kfd.h"

namespace hipmem::thunk {
namespace {

// A queue and the shared Kfd instance it belongs to. After fork() the child inherits the parent's records, whose
// instance it must never call into (its simulated engines have no threads there): a record of another instance
// is not a live queue of this one, and is dropped without being destroyed.
struct LiveQueue {
  Kfd* owner;  // Not owned.
  std::unique_ptr<Queue> queue;
};
using QueueMap = absl::flat_hash_map<HSA_QUEUEID, LiveQueue>;

ABSL_CONST_INIT absl::Mutex g_queues_mu(absl::kConstInit);

// Never destroyed, like the shared Kfd.
QueueMap& LiveQueues() ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_queues_mu) {
  static QueueMap* const queues = new QueueMap();
  return *queues;
}

// Keeps a record of another instance reachable (leak checkers) without ever destroying it.
void LeaveBehind(std::unique_ptr<Queue> queue) {
  static auto* const left = new std::vector<Queue*>();
  static absl::Mutex left_mu;
  ScopedLock lock(&left_mu);
  left->push_back(queue.release());
}

// The last hsaKmtCloseKFD ends the process: its queues go first, while the instance still works, so no id
// handed out before can reach a later process (whose kernel may reuse the queue ids).
// Records of another instance (a forked child's inheritance) are leaked: destroying them would call into the
// parent's process.
void DestroyAllQueues(Kfd& kfd) {
  QueueMap queues;
  {
    ScopedLock lock(&g_queues_mu);
    queues.swap(LiveQueues());
  }
  for (auto& [id, live] : queues) {
    if (live.owner != &kfd) LeaveBehind(std::move(live.queue));
  }
  queues.clear();  // each Queue of `kfd` destroys itself
}

// The live queue `id` of the current shared instance, or nullptr.
LiveQueue* FindLocked(HSA_QUEUEID id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_queues_mu) {
  const auto it = LiveQueues().find(id);
  if (it == LiveQueues().end()) return nullptr;
  absl::StatusOr<Kfd*> current = SharedKfd();
  if (!current.ok() || *current != it->second.owner) return nullptr;
  return &it->second;
}

HSAKMT_STATUS Create(HSAuint32 node_id, HSA_QUEUE_TYPE type, HSAuint32 percentage, HSA_QUEUE_PRIORITY priority,
                     HSAuint32 sdma_engine_id, void* ring, HSAuint64 ring_size, HsaQueueResource* resource) {
  if (resource == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  absl::StatusOr<Kfd*> kfd = SharedKfd();
  if (!kfd.ok()) return ToHsakmtStatus(kfd.status());
  static const bool hooked = (AddSharedKfdCloseHook(&DestroyAllQueues), true);
  (void)hooked;
  const QueueSpec spec{
      .node = NodeId(node_id),
      .type = static_cast<QueueType>(type),
      .percentage = percentage,
      .priority = static_cast<QueuePriority>(priority),
      .ring = DeviceAddress::FromPointer(ring),
      .ring_size = Bytes(ring_size),
      .sdma_engine_id = sdma_engine_id,
      .aql_read_pointer = DeviceAddress(resource->QueueRptrValue),
      .aql_write_pointer = DeviceAddress(resource->QueueWptrValue),
  };
  absl::StatusOr<Queue> queue = Queue::Create(**kfd, spec);
  if (!queue.ok()) return ToHsakmtStatus(queue.status());
  auto owned = std::make_unique<Queue>(*std::move(queue));
  resource->QueueId = reinterpret_cast<uintptr_t>(owned.get());
  resource->Queue_DoorBell_aql = owned->doorbell();
  resource->Queue_read_ptr_aql = owned->read_pointer();
  resource->Queue_write_ptr_aql = owned->write_pointer();
  ScopedLock lock(&g_queues_mu);
  // An inherited record of the parent's with the same address is the parent's memory, never destroyed here.
  if (auto it = LiveQueues().find(resource->QueueId); it != LiveQueues().end()) {
    LeaveBehind(std::move(it->second.queue));
  }
  LiveQueues().insert_or_assign(resource->QueueId, LiveQueue{.owner = *kfd, .queue = std::move(owned)});
  return HSAKMT_STATUS_SUCCESS;
}

}  // namespace

absl::Status WithLiveQueue(HSA_QUEUEID id, absl::FunctionRef<absl::Status(Queue&)> fn) {
  ScopedLock lock(&g_queues_mu);
  LiveQueue* live = FindLocked(id);
  if (live == nullptr) {
    return WithHsakmtStatus(absl::NotFoundError(absl::StrCat("queue 0x", absl::Hex(id), ": not a live queue")),
                            HSAKMT_STATUS_INVALID_PARAMETER);
  }
  return fn(*live->queue);
}

}  // namespace hipmem::thunk

using ::hipmem::thunk::FindLocked;
using ::hipmem::thunk::LiveQueues;

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueue(HSAuint32 NodeId, HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,
                                          HSA_QUEUE_PRIORITY Priority, void* QueueAddress,
                                          HSAuint64 QueueSizeInBytes, HsaEvent* /*Event*/,
                                          HsaQueueResource* QueueResource) {
  return hipmem::thunk::Create(NodeId, Type, QueuePercentage, Priority, 0, QueueAddress, QueueSizeInBytes,
                               QueueResource);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueExt(HSAuint32 NodeId, HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,
                                             HSA_QUEUE_PRIORITY Priority, HSAuint32 SdmaEngineId,
                                             void* QueueAddress, HSAuint64 QueueSizeInBytes, HsaEvent* /*Event*/,
                                             HsaQueueResource* QueueResource) {
  return hipmem::thunk::Create(NodeId, Type, QueuePercentage, Priority, SdmaEngineId, QueueAddress,
                               QueueSizeInBytes, QueueResource);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtUpdateQueue(HSA_QUEUEID QueueId, HSAuint32 QueuePercentage,
                                          HSA_QUEUE_PRIORITY Priority, void* QueueAddress, HSAuint64 QueueSize,
                                          HsaEvent* /*Event*/) {
  hipmem::ScopedLock lock(&hipmem::thunk::g_queues_mu);
  hipmem::thunk::LiveQueue* live = FindLocked(QueueId);
  if (live == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  return hipmem::thunk::ToHsakmtStatus(live->queue->Update(QueuePercentage,
                                                          static_cast<hipmem::thunk::QueuePriority>(Priority),
                                                          hipmem::DeviceAddress::FromPointer(QueueAddress),
                                                          hipmem::Bytes(QueueSize)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueue(HSA_QUEUEID QueueId) {
  std::unique_ptr<hipmem::thunk::Queue> queue;
  {
    hipmem::ScopedLock lock(&hipmem::thunk::g_queues_mu);
    if (FindLocked(QueueId) == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
    queue = std::move(LiveQueues().extract(QueueId).mapped().queue);
  }
  return hipmem::thunk::ToHsakmtStatus(std::move(*queue).Destroy());
}

}  // extern "C"
