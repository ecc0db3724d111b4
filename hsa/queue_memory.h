// A hardware queue's memory: its ring and its control page (the read/write pointers, signals and kernel
// arguments its engine reads), in system memory mapped on the one GPU whose engine reads them.
//
// Used by the runtime's AQL queues (queue.cc) and its copy engines' queues (copy.cc). Owned: both buffers are
// freed when this goes, so the KFD queue that reads them must be destroyed first (declare it after this).
#ifndef HIPMEM_HSA_QUEUE_MEMORY_H_
#define HIPMEM_HSA_QUEUE_MEMORY_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "base/units.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

struct QueueMemory {
  // Host-visible, uncached system memory the GPU maps, as ROCr's system allocator gives AqlQueue and BlitSdma.
  static constexpr thunk::MemFlags kFlags =
      thunk::MemFlags::kNonPaged | thunk::MemFlags::kHostAccess | thunk::MemFlags::kUncached |
      thunk::MemFlags::kExecuteAccess;
  static constexpr Bytes kControlBytes = Bytes::KiB(4);

  // Allocates a ring of `ring_bytes` and a control page of kControlBytes and maps both on `gpu`. Errors: the
  // thunk's, annotated with `context`; nothing is left allocated then.
  static absl::StatusOr<QueueMemory> Allocate(thunk::Kfd& kfd, thunk::NodeId gpu, Bytes ring_bytes,
                                              std::string_view context);

  thunk::KfdAllocation ring;
  thunk::KfdAllocation control;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_QUEUE_MEMORY_H_
