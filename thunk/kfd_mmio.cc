// Kfd, the remapped MMIO page: each GPU's HDP-flush register page (libhsakmt fmm.c map_mmio and release_mmio),
// which hsaKmtGetNodeMemoryProperties reports as the node's MMIO_REMAP bank and ROCr writes to flush the HDP.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {

using kfd_uapi::AllocMemFlags;

namespace {

// hsakmt_topology_is_svm_needed: GFX9 and later dGPUs get the page (and the SVM apertures it lives in).
constexpr uint32_t kFirstGfxWithMmioPage = 9;

}  // namespace

void Kfd::MapMmioPages() {
  for (const Gpu& gpu : gpus_) {
    const absl::StatusOr<const NodeProperties*> node = Node(gpu.node);
    if (!node.ok() || (*node)->gfx_major() < kFirstGfxWithMmioPage) continue;
    absl::StatusOr<DeviceAddress> page = MapMmioPage(gpu);
    // As libhsakmt: a GPU whose page cannot be mapped works on without it (and reports no MMIO_REMAP bank).
    if (!page.ok()) {
      HIPMEM_LOG(kWarning, "no remapped MMIO page on node ", gpu.node.raw(), ": ", page.status().message());
      continue;
    }
    mmio_pages_.emplace(gpu.node.raw(), *page);
  }
}

absl::StatusOr<DeviceAddress> Kfd::MapMmioPage(const Gpu& gpu) {
  const std::string context = absl::StrCat("MMIO page of node ", gpu.node.raw());
  const Bytes size = kPageSize;
  ASSIGN_OR_RETURN(VaReservation va, aperture_->Allocate(size, Bytes(0)));
  const AddressRange range = va.range();
  absl::StatusOr<KfdBuffer::Allocated> allocated = AllocBo(
      gpu, range.base, size, ToRaw(AllocMemFlags::kMmioRemap | AllocMemFlags::kWritable | AllocMemFlags::kCoherent), 0);
  if (!allocated.ok()) return Annotate(allocated.status(), context);
  // CPU first, then the GPU, as map_mmio does.
  RETURN_IF_ERROR(Annotate(device_->MapKfdPagesForCpu(range.base.ToPointer(), size, allocated->mmap_offset), context));
  uint32_t gpu_id = gpu.gpu_id.raw();
  kfd_uapi::MapMemoryToGpuArgs map{};
  map.handle = allocated->buffer.handle()->raw();
  map.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu_id);
  map.n_devices = 1;
  RETURN_IF_ERROR(Annotate(Ioctl(*device_, kfd_uapi::kMapMemoryToGpu, map), context));
  // A forked child must not write the parent's registers.
  RETURN_IF_ERROR(Annotate(KeepFromForkedChildren(range), context));
  Allocation allocation{.va = std::move(va), .bo = std::move(allocated->buffer)};
  allocation.node = gpu.node;
  allocation.owner_gpu = gpu.gpu_id;
  allocation.flags = MemFlags::kNonPaged | MemFlags::kHostAccess;  // map_mmio's vm_obj->mflags
  allocation.mapped_gpus = {gpu.gpu_id};
  Insert(std::move(allocation));
  return range.base;
}

std::optional<DeviceAddress> Kfd::MmioPage(NodeId node) const {
  const auto it = mmio_pages_.find(node.raw());
  if (it == mmio_pages_.end()) return std::nullopt;
  return it->second;
}

std::optional<Kfd::HdpFlush> Kfd::HdpFlushRegisters(NodeId node) const {
  const std::optional<DeviceAddress> page = MmioPage(node);
  if (!page.has_value()) return std::nullopt;
  auto* regs = static_cast<std::byte*>(page->ToPointer());
  return HdpFlush{.mem_flush_cntl = reinterpret_cast<uint32_t*>(regs + kfd_uapi::kMmioRemapHdpMemFlushCntl),
                  .reg_flush_cntl = reinterpret_cast<uint32_t*>(regs + kfd_uapi::kMmioRemapHdpRegFlushCntl)};
}

}  // namespace hipmem::thunk
