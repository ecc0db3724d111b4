#include "hsa/queue_memory.h"

#include <span>
#include <string>
#include <utility>

#include "base/status_macros.h"

namespace hipmem::hsa {

absl::StatusOr<QueueMemory> QueueMemory::Allocate(thunk::Kfd& kfd, thunk::NodeId gpu, Bytes ring_bytes,
                                                  std::string_view context) {
  const std::span<const thunk::NodeId> just_gpu(&gpu, 1);
  const std::string what(context);  // Debian's Abseil: no string_view StrCat
  ASSIGN_OR_RETURN(thunk::KfdAllocation ring, kfd.AllocMemory(thunk::kSystemMemoryNode, ring_bytes, kFlags));
  ASSIGN_OR_RETURN(thunk::KfdAllocation control, kfd.AllocMemory(thunk::kSystemMemoryNode, kControlBytes, kFlags));
  RETURN_IF_ERROR(Annotate(kfd.MapMemoryToGpu(ring.address(), just_gpu), what));
  RETURN_IF_ERROR(Annotate(kfd.MapMemoryToGpu(control.address(), just_gpu), what));
  return QueueMemory{std::move(ring), std::move(control)};
}

}  // namespace hipmem::hsa
