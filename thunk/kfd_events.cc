// Kfd, the event side: the process's event page that CREATE_EVENT hands the kernel (libhsakmt events.c).
#include <span>

#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {

absl::StatusOr<Kfd::EventPage> Kfd::AllocEventPage() {
  // libhsakmt: hsakmt_allocate_exec_aligned_memory_gpu(KFD_SIGNAL_EVENT_LIMIT * 8, PAGE_SIZE, node 0,
  // NonPaged, !DeviceLocal, Uncached), i.e. pinned host-visible system memory (a GTT BO), then
  // hsaKmtMapMemoryToGPU to every GPU.
  const Bytes size(uint64_t{kfd_uapi::kSignalEventLimit} * sizeof(uint64_t));
  const MemFlags flags = MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kExecuteAccess | MemFlags::kUncached;
  ASSIGN_OR_RETURN(KfdAllocation page, AllocMemory(NodeId(0), size, flags, kPageSize));
  RETURN_IF_ERROR(MapMemoryToGpu(page.address()));  // else `page` frees it
  // Kept by the record from here: the kernel takes the page over, and FreeMemory then refuses it (see kfd.h).
  const DeviceAddress address = std::move(page).Release();
  ScopedLock lock(&mu_);
  const Allocation& allocation = allocations_.FindStart(address)->value;
  return EventPage{address, *allocation.handle(),
                   std::span<uint64_t>(static_cast<uint64_t*>(address.ToPointer()), kfd_uapi::kSignalEventLimit)};
}

absl::StatusOr<std::span<uint64_t>> Kfd::CreateEventWithPage(
    absl::FunctionRef<absl::Status(uint64_t event_page_offset)> create_event) {
  ScopedLock lock(&event_mu_);
  // dGPUs: the page is user memory the kernel maps; without a GPU the kernel allocates its own.
  if (!event_page_ && !gpus_.empty()) {
    ASSIGN_OR_RETURN(event_page_, AllocEventPage());
  }
  uint64_t event_page_offset = 0;
  if (event_page_ && !event_page_handed_over_) {
    // As libhsakmt, the page counts as handed over once passed, whatever the kernel answers.
    event_page_offset = event_page_->handle.raw();
    event_page_handed_over_ = true;
    ScopedLock allocations_lock(&mu_);
    allocations_.FindStart(event_page_->address)->value.kernel_owned = true;
  }
  RETURN_IF_ERROR(create_event(event_page_offset));
  return event_page_ ? event_page_->slots : std::span<uint64_t>();
}

}  // namespace hipmem::thunk
