// Kfd, the dma-buf side (libhsakmt fmm.c: fmm_export_dma_buf_fd, fmm_register_graphics_handle): a buffer of this
// process becomes a descriptor another process (or this one) imports onto a GPU VA of its own.
#include <fcntl.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {
namespace {

using kfd_uapi::AllocMemFlags;

// fmm_register_graphics_handle's IMAGE_ALIGN: imports sit on 256 KiB boundaries.
constexpr Bytes kImageAlign = Bytes::KiB(256);
// GRAPHICS_METADATA_DEFAULT_SIZE: the room offered first; the kernel says how much it needs when that is short.
constexpr uint32_t kDefaultMetadataSize = 64;

// fmm_translate_ioc_to_hsa_flags over GET_DMABUF_INFO's flags (VRAM or GTT, PUBLIC): no WRITABLE reads as
// ReadOnly and no COHERENT as CoarseGrain, as upstream; fmm_register_graphics_handle then sets CoarseGrain.
MemFlags ImportedFlags(uint32_t ioc_raw) {
  const AllocMemFlags ioc = kfd_uapi::AllocMemFlagsFromRaw(ioc_raw);
  MemFlags flags = MemFlags::kCoarseGrain;
  if (!kfd_uapi::HasFlag(ioc, AllocMemFlags::kWritable)) flags = flags | MemFlags::kReadOnly;
  if (kfd_uapi::HasFlag(ioc, AllocMemFlags::kPublic)) flags = flags | MemFlags::kHostAccess;
  return flags;
}

}  // namespace

absl::StatusOr<Kfd::DmaBufExport> Kfd::ExportDmaBuf(DeviceAddress address, Bytes size) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtExportDMABufHandle");
  const auto context = [&] {
    return absl::StrCat("hsaKmtExportDMABufHandle(", AddressText(address), ", size=", size.raw(), ")");
  };
  kfd_uapi::ExportDmabufArgs args{};
  Bytes offset;
  {
    ScopedLock lock(&mu_);
    const Allocation* a = FindContainingLocked(address);
    // fmm_export_dma_buf_fd: vm_find_object(address, UINT64_MAX), and the range must end inside the object.
    if (a == nullptr) {
      return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context(), ": not in an allocation")),
                              HSAKMT_STATUS_INVALID_PARAMETER);
    }
    // A registration is found by its CPU range; the kernel refuses to export user pages all the same (EPERM).
    const AddressRange range = a->user.has_value() ? AddressRange{a->user->cpu, a->user->size} : a->range();
    offset = address - range.base;
    const std::optional<Bytes> end = CheckedAdd(offset, size);
    if (!end.has_value() || *end > range.size) {
      return WithHsakmtStatus(
          absl::InvalidArgumentError(absl::StrCat(context(), ": runs past the allocation's ", range.size.raw(),
                                                  " bytes at offset ", offset.raw())),
          HSAKMT_STATUS_INVALID_PARAMETER);
    }
    // handles[0]: 0 for a reservation or a scratch range, which the kernel then refuses (EINVAL).
    args.handle = a->handle().has_value() ? a->handle()->raw() : 0;
  }
  args.flags = O_CLOEXEC;
  RETURN_IF_ERROR(
      WithHsakmtStatus(Annotate(Ioctl(*device_, kfd_uapi::kExportDmabuf, args), context()), HSAKMT_STATUS_ERROR));
  // Adopted on the line after the kernel answers.
  return DmaBufExport{DmaBufFd::Adopt(static_cast<int>(args.dmabuf_fd)), offset};
}

absl::StatusOr<Kfd::ImportedDmaBuf> Kfd::ImportDmaBuf(int dmabuf_fd, std::span<const NodeId> nodes, bool with_va) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtImportDMABufHandle");
  const std::string context = absl::StrCat("hsaKmtRegisterGraphicsHandleToNodes(fd=", dmabuf_fd,
                                           ", nodes=", nodes.size(), with_va ? "" : ", no VA", ")");
  ASSIGN_OR_RETURN(const GpuIdList registered, GpuIdsOfNodes(nodes, context));
  // GET_DMABUF_INFO with GRAPHICS_METADATA_DEFAULT_SIZE bytes of room, again with what the kernel asks for.
  std::vector<uint8_t> metadata(kDefaultMetadataSize);
  kfd_uapi::GetDmabufInfoArgs info{};
  info.dmabuf_fd = static_cast<uint32_t>(dmabuf_fd);
  info.metadata_ptr = reinterpret_cast<uintptr_t>(metadata.data());
  info.metadata_size = kDefaultMetadataSize;
  absl::Status got = Ioctl(*device_, kfd_uapi::kGetDmabufInfo, info);
  if (!got.ok() && info.metadata_size > kDefaultMetadataSize) {
    metadata.resize(info.metadata_size);
    info.metadata_ptr = reinterpret_cast<uintptr_t>(metadata.data());
    got = Ioctl(*device_, kfd_uapi::kGetDmabufInfo, info);
  }
  RETURN_IF_ERROR(WithHsakmtStatus(Annotate(got, context), HSAKMT_STATUS_ERROR));
  metadata.resize(info.metadata_size);
  const Gpu* gpu = nullptr;
  for (const Gpu& g : gpus_) {
    if (g.gpu_id.raw() == info.gpu_id) gpu = &g;
  }
  // gpu_mem_find_by_gpu_id failing: the buffer is memory of a GPU this process does not have.
  if (gpu == nullptr) {
    return WithHsakmtStatus(
        absl::NotFoundError(absl::StrCat(context, ": gpu_id 0x", absl::Hex(info.gpu_id), " is not a GPU here")),
        HSAKMT_STATUS_ERROR);
  }
  const Bytes size(info.size);
  absl::StatusOr<VaReservation> va =
      with_va ? aperture_->Allocate(size, kImageAlign) : handle_aperture_->Allocate(size);
  if (!va.ok()) return WithHsakmtStatus(Annotate(va.status(), context), HSAKMT_STATUS_ERROR);
  const AddressRange range = va->range();
  absl::StatusOr<KfdBuffer> bo =
      KfdBuffer::Import(*device_, gpu->gpu_id, with_va ? range.base : DeviceAddress(0), dmabuf_fd);
  if (!bo.ok()) return WithHsakmtStatus(Annotate(bo.status(), context), HSAKMT_STATUS_ERROR);

  Allocation allocation{.va = *std::move(va), .bo = *std::move(bo)};
  allocation.kind = with_va ? Kind::kBuffer : Kind::kHandleOnly;
  allocation.node = gpu->node;
  allocation.owner_gpu = gpu->gpu_id;
  allocation.flags = ImportedFlags(info.flags);
  allocation.is_vram = kfd_uapi::HasFlag(kfd_uapi::AllocMemFlagsFromRaw(info.flags), AllocMemFlags::kVram);
  for (uint32_t id : registered) allocation.registered_gpus.emplace_back(id);
  allocation.imported = true;
  allocation.metadata = std::move(metadata);
  // The vector's storage moves with it into the map, so the span stays valid until the import is freed.
  const std::span<const uint8_t> kept(allocation.metadata);
  Insert(std::move(allocation));
  return ImportedDmaBuf{range.base, size, gpu->node, kept};
}

}  // namespace hipmem::thunk
