// Kfd, the doorbell side of queues: the per-GPU doorbell slice (libhsakmt queues.c map_doorbell and fmm.c
// hsakmt_fmm_allocate_doorbell).
#include <sys/mman.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {

using kfd_uapi::AllocMemFlags;

absl::StatusOr<uint64_t*> Kfd::DoorbellSlice(NodeId node) {
  const std::string context = absl::StrCat("doorbells of node ", node.raw());
  const Gpu* gpu = GpuOfNode(node);
  if (gpu == nullptr) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context, ": not a GPU node")),
                            HSAKMT_STATUS_INVALID_NODE_UNIT);
  }
  ScopedLock lock(&doorbell_mu_);
  if (auto it = doorbells_.find(node.raw()); it != doorbells_.end()) return it->second;
  const Bytes size(kDoorbellSliceBytes);
  ASSIGN_OR_RETURN(VaReservation va, aperture_->Allocate(size, Bytes(0)));
  const AddressRange range = va.range();
  absl::StatusOr<KfdBuffer::Allocated> allocated = AllocBo(
      *gpu, range.base, size, ToRaw(AllocMemFlags::kDoorbell | AllocMemFlags::kWritable | AllocMemFlags::kCoherent),
      0);
  if (!allocated.ok()) return Annotate(allocated.status(), context);
  uint32_t gpu_id = gpu->gpu_id.raw();
  kfd_uapi::MapMemoryToGpuArgs map{};
  map.handle = allocated->buffer.handle()->raw();
  map.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu_id);
  map.n_devices = 1;
  RETURN_IF_ERROR(Annotate(Ioctl(*device_, kfd_uapi::kMapMemoryToGpu, map), context));
  RETURN_IF_ERROR(
      Annotate(device_->MapKfdPagesForCpu(range.base.ToPointer(), size, allocated->mmap_offset), context));
  // A forked child must not ring the parent's queues.
  RETURN_IF_ERROR(Annotate(KeepFromForkedChildren(range), context));
  Allocation allocation{.va = std::move(va), .bo = std::move(allocated->buffer)};
  allocation.node = node;
  allocation.owner_gpu = gpu->gpu_id;
  allocation.mapped_gpus = {gpu->gpu_id};
  Insert(std::move(allocation));
  auto* first = static_cast<uint64_t*>(range.base.ToPointer());
  doorbells_.emplace(node.raw(), first);
  return first;
}

}  // namespace hipmem::thunk
