// Kfd, the IPC side (libhsakmt fmm.c: fmm_share_memory, fmm_register_shared_memory): a buffer of this process gets a
// machine-wide name another process imports onto a VA of its own. The kernel side is the amdgpu-DKMS amdkfd's
// (AMDKFD_IOC_IPC_EXPORT_HANDLE / IPC_IMPORT_HANDLE); a mainline kernel has no such ioctls and answers ENOTTY,
// where ROCr shares through dma-buf instead (kfd_dmabuf.cc).
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {
namespace {

// fmm_share_memory: SizeInPages is 32 bits of 4 KiB pages.
constexpr uint64_t kMaxShareBytes = uint64_t{1} << (32 + 12);
// HSA_APERTURE_DGPU_ALT: the coherent SVM aperture, the same one as HSA_APERTURE_DGPU from gfx9 on.
constexpr uint32_t kApertureSvmAlt = 2;

absl::Status InvalidParameter(absl::string_view message) {
  return WithHsakmtStatus(absl::InvalidArgumentError(message), HSAKMT_STATUS_INVALID_PARAMETER);
}

// A failed IPC ioctl as HSAKMT_STATUS_ERROR (libhsakmt's answer to any of them), saying so when the kernel has no
// such ioctl at all.
absl::Status IpcIoctlError(const absl::Status& status, absl::string_view context) {
  absl::Status annotated = Annotate(status, context);
  if (ErrnoOf(status) == ENOTTY) {
    annotated = Annotate(annotated, "this kernel has no IPC ioctls (they are the amdgpu-dkms amdkfd's; mainline "
                                    "shares through dma-buf, hsaKmtExportDMABufHandle)");
  }
  return WithHsakmtStatus(annotated, HSAKMT_STATUS_ERROR);
}

}  // namespace

absl::StatusOr<Kfd::SharedMemoryHandle> Kfd::ShareMemory(DeviceAddress address, Bytes size) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtShareMemory");
  const auto context = [&] {
    return absl::StrCat("hsaKmtShareMemory(", AddressText(address), ", size=", size.raw(), ")");
  };
  if (size.raw() >= kMaxShareBytes) {
    return InvalidParameter(absl::StrCat(context(), ": more than 2^32 pages"));
  }
  // fmm_find_aperture: the handle aperture for a NoAddress buffer's name, else the SVM aperture (also for an
  // address outside it, which then finds nothing).
  const bool handle_aperture =
      AddressRange{handle_aperture_->base(), handle_aperture_->size()}.Contains(address);
  kfd_uapi::IpcExportHandleArgs args{};
  Bytes pages_size;
  {
    ScopedLock lock(&mu_);
    // vm_find_object_by_address(aperture, address, 0): the object whose VA starts exactly at `address`. A
    // registered CPU pointer is none (its BO sits at a GPU VA of its own), nor is an address inside an object.
    const AddressRangeMap<Allocation>::Entry* entry = allocations_.FindStart(address);
    if (entry == nullptr) return InvalidParameter(absl::StrCat(context(), ": no allocation starts here"));
    const Allocation& a = entry->value;
    // Deliberate (see kfd.h): the importer reserves the handle's pages and the kernel maps the whole BO there.
    const std::optional<Bytes> pages = AlignUp(size, kPageSize);
    if (!pages.has_value() || *pages != a.range().size) {
      return InvalidParameter(absl::StrCat(context(), ": the allocation is ", a.range().size.raw(),
                                           " bytes, and only all of it can be shared"));
    }
    pages_size = *pages;
    // handles[0]: 0 for a reservation or a scratch range, which the kernel refuses (EINVAL). fmm_share_memory
    // exports on the object's node's GPU, the first GPU for system memory: the GPU in the BO's handle.
    args.handle = a.handle().has_value() ? a.handle()->raw() : 0;
    args.gpu_id = a.owner_gpu.raw();
    args.flags = ToRaw(a.flags);  // obj->mflags.Value: every importer reports these
  }
  if (absl::Status s = Ioctl(*device_, kfd_uapi::kIpcExportHandle, args); !s.ok()) {
    return IpcIoctlError(s, context());
  }
  SharedMemoryHandle handle{};
  std::copy(std::begin(args.share_handle), std::end(args.share_handle), handle.share_handle.begin());
  handle.aperture_type = handle_aperture ? kApertureMemHandle : kApertureSvm;
  handle.aperture_index = 0;
  handle.size_in_pages = static_cast<uint32_t>(pages_size.raw() / kPageSize.raw());
  handle.export_gpu_id = args.gpu_id;
  return handle;
}

absl::StatusOr<Kfd::ImportedShared> Kfd::RegisterSharedHandle(const SharedMemoryHandle& handle,
                                                              std::span<const NodeId> nodes) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtRegisterSharedHandleToNodes");
  const std::string context =
      absl::StrCat("hsaKmtRegisterSharedHandleToNodes(gpu_id=0x", absl::Hex(handle.export_gpu_id),
                   ", pages=", handle.size_in_pages, ", nodes=", nodes.size(), ")");
  ASSIGN_OR_RETURN(const GpuIdList registered, GpuIdsOfNodes(nodes, context));
  // fmm_get_aperture: this process has the SVM aperture (DGPU and DGPU_ALT are one from gfx9 on) and the handle
  // aperture; the GPUVM and CPUVM apertures are APUs'.
  const bool handle_aperture = handle.aperture_type == kApertureMemHandle;
  if (!handle_aperture && handle.aperture_type != kApertureSvm && handle.aperture_type != kApertureSvmAlt) {
    return InvalidParameter(
        absl::StrCat(context, ": aperture type ", handle.aperture_type, " is not one of this process"));
  }
  if (handle.size_in_pages == 0) return InvalidParameter(absl::StrCat(context, ": a handle of no pages"));
  const Bytes size(uint64_t{handle.size_in_pages} * kPageSize.raw());
  // aperture_allocate_area: the aperture's default alignment.
  absl::StatusOr<VaReservation> va =
      handle_aperture ? handle_aperture_->Allocate(size) : aperture_->Allocate(size, Bytes(0));
  if (!va.ok()) return WithHsakmtStatus(Annotate(va.status(), context), HSAKMT_STATUS_NO_MEMORY);
  const AddressRange range = va->range();
  // Import at the reserved VA, as upstream also for the handle aperture (whose addresses the kernel refuses).
  // Declared after `va`: on every failure below the buffer is freed before its VA goes.
  absl::StatusOr<KfdBuffer::SharedImport> imported =
      KfdBuffer::ImportShared(*device_, GpuId(handle.export_gpu_id), range.base, handle.share_handle);
  if (!imported.ok()) return IpcIoctlError(imported.status(), context);
  const Gpu* gpu = nullptr;
  for (const Gpu& g : gpus_) {
    if (g.gpu_id.raw() == handle.export_gpu_id) gpu = &g;
  }
  // gpu_mem_find_by_gpu_id failing after the kernel accepted the GPU.
  if (gpu == nullptr) {
    return WithHsakmtStatus(absl::NotFoundError(absl::StrCat(context, ": not a GPU of this process")),
                            HSAKMT_STATUS_ERROR);
  }
  const MemFlags flags = MemFlagsFromRaw(imported->flags);
  // fmm_map_to_cpu over the reservation. A handle claiming more pages than the buffer has fails here.
  const bool host_access = HasFlag(flags, MemFlags::kHostAccess);
  RETURN_IF_ERROR(WithHsakmtStatus(
      Annotate(MapBoForCpu(*gpu, range.base.ToPointer(), size, host_access ? PROT_READ | PROT_WRITE : PROT_NONE,
                           imported->mmap_offset),
               context),
      HSAKMT_STATUS_ERROR));

  Allocation allocation{.va = *std::move(va), .bo = std::move(imported->buffer)};
  allocation.kind = Kind::kBuffer;
  allocation.node = gpu->node;  // fmm_register_shared_memory: the node of the GPU it was imported on
  allocation.owner_gpu = gpu->gpu_id;
  allocation.flags = flags;
  // Whether it is VRAM the handle does not say; a map without nodes goes to the GPU's peers all the same.
  allocation.is_vram = false;
  for (uint32_t id : registered) allocation.registered_gpus.emplace_back(id);
  allocation.shared_import = true;
  Insert(std::move(allocation));
  return ImportedShared{range.base, size};
}

}  // namespace hipmem::thunk
