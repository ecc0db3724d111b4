// The simulated kernel's dma-buf ioctls (kfd_chardev.c's get_dmabuf_info, import_dmabuf and export_dmabuf over
// amdgpu_amdkfd_gpuvm.c's export/import): a buffer exported by one KFD process becomes a descriptor that any
// process of the same simulator imports onto a GPU VA of its own -- the same pages, counted once.
#include <fcntl.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "base/log.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/dmabuf_table.h"
#include "testing/kfd_sim/shared_resources.h"
#include "testing/kfd_sim/sim_internal.h"

namespace hipmem::kfd_sim::sim_internal {
namespace {

// An exported buffer's memory accounting, moved out of its BO at export: the pages stay in use as long as
// any holder does, so they stay counted until the last one (exporter BO, importer BO, descriptor) goes.
class ExportCharge {
 public:
  // `shared` must outlive this: the charge lives in BOs and in SharedResources' own dma-buf table.
  ExportCharge(SharedResources* shared, bool vram, size_t gpu_index, Bytes amount)
      : shared_(shared), vram_(vram), gpu_index_(gpu_index), amount_(amount) {}
  ~ExportCharge() {
    if (vram_) {
      shared_->ReleaseVram(gpu_index_, amount_);
    } else if (!amount_.is_zero()) {
      shared_->ReleaseSystem(amount_);
    }
  }
  ExportCharge(const ExportCharge&) = delete;
  ExportCharge& operator=(const ExportCharge&) = delete;

 private:
  SharedResources* const shared_;  // Not owned; must outlive this.
  const bool vram_;
  const size_t gpu_index_;
  const Bytes amount_;
};

}  // namespace

int GetDmabufInfo(IoctlContext& c, uapi::GetDmabufInfoArgs& args) {
  // dma_buf_get: -EBADF for a closed descriptor, -EINVAL for a file that is not a dma-buf.
  const DmaBufTable::Found found = c.shared.dmabufs().Find(static_cast<int>(args.dmabuf_fd));
  if (found.error != 0) return found.error;
  const DmaBufObject& object = *found.object;
  args.size = object.size.raw();
  args.gpu_id = c.topology.gpus[object.gpu_index].gpu_id;
  args.flags = object.alloc_flags;
  // amdgpu_bo_get_metadata: simulated buffers carry no UMD metadata (tiling, ...); nothing is copied.
  args.metadata_size = 0;
  return 0;
}

int ImportDmabuf(IoctlContext& c, uapi::ImportDmabufArgs& args) {
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  const DmaBufTable::Found found = c.shared.dmabufs().Find(static_cast<int>(args.dmabuf_fd));
  if (found.error != 0) return found.error;
  ProcessDevice& device = c.process.devices[*gpu];
  if (!device.vm_token) return -ENODEV;  // kfd_bind_process_to_device, as ALLOC
  // Deliberate: the VA is checked as ALLOC checks it (the kernel leaves a bad one to the later map); a VRAM
  // buffer may come without one, as from ALLOC.
  const bool vram =
      uapi::HasFlag(uapi::AllocMemFlagsFromRaw(found.object->alloc_flags), uapi::AllocMemFlags::kVram);
  const VaCheck checked = CheckNewBufferVa(device, args.va_addr, found.object->size, vram);
  if (checked.error != 0) return checked.error;
  const ImportedBo imported = AddImportedBo(c, *gpu, checked.va, found.object, nullptr);
  if (imported.error != 0) return imported.error;
  args.handle = imported.handle;
  return 0;
}

ImportedBo AddImportedBo(IoctlContext& c, size_t gpu, const std::optional<AddressRange>& va,
                         std::shared_ptr<const DmaBufObject> object, std::shared_ptr<const IpcObject> ipc) {
  // kfd_process_device_create_obj_handle failing.
  if (c.process.next_idr == 0) return ImportedBo{.error = -EFAULT, .handle = 0, .mmap_offset = 0};
  const std::optional<uint64_t> mmap_offset = c.shared.AllocateMmapOffset(object->size);
  if (!mmap_offset) return ImportedBo{.error = -ENOMEM, .handle = 0, .mmap_offset = 0};

  const uint64_t handle = uapi::MakeHandle(c.topology.gpus[gpu].gpu_id, c.process.next_idr++);
  if (va) {
    const absl::Status s = c.process.devices[gpu].allocated_vas.Insert(*va, handle);
    HIPMEM_CHECK(s.ok(), s.ToString());
  }
  c.process.mmap_offsets.emplace(*mmap_offset, handle);
  // amdgpu_amdkfd_gpuvm_import_dmabuf: the new mem is VRAM or GTT as the BO prefers, writable and executable.
  // Deliberate: it keeps PUBLIC, so a CPU-visible buffer stays mappable (and an invisible one does not).
  // Deliberate: a buffer imported on another GPU counts as that GPU's for peer reachability at MAP.
  const uapi::AllocMemFlags flags = uapi::AllocMemFlagsFromRaw(object->alloc_flags) | uapi::AllocMemFlags::kWritable |
                                    uapi::AllocMemFlags::kExecutable;
  const bool vram = uapi::HasFlag(flags, uapi::AllocMemFlags::kVram);
  std::shared_ptr<BoPages> pages = object->pages;
  const Bytes size = object->size;
  c.process.bos.emplace(handle, Bo{
                                    .handle = handle,
                                    .gpu_index = gpu,
                                    .va = va,
                                    .size = size,
                                    .flags = flags,
                                    .domain = vram ? Domain::kVram : Domain::kGtt,
                                    .accounted = Bytes(0),  // counted once, against the exporter
                                    .mmap_offset = *mmap_offset,
                                    .userptr = 0,
                                    .pages = std::move(pages),
                                    .mapped_on = {},
                                    .dmabuf = std::move(object),
                                    .ipc = std::move(ipc),
                                });
  return ImportedBo{.error = 0, .handle = handle, .mmap_offset = *mmap_offset};
}

int EnsureDmaBufObject(IoctlContext& c, Bo& bo) {
  // amdgpu_gem_prime_export refuses user pages (-EPERM). Deliberate: a doorbell slice is not exportable either.
  if (bo.domain == Domain::kUserptr) return -EPERM;
  if (bo.domain != Domain::kVram && bo.domain != Domain::kGtt) return -EINVAL;
  // The first export makes the BO's dma_buf; later ones share it (mem->dmabuf).
  if (bo.dmabuf != nullptr) return 0;
  const bool vram = bo.domain == Domain::kVram;
  const bool visible = uapi::HasFlag(bo.flags, uapi::AllocMemFlags::kPublic);
  const uapi::AllocMemFlags kept = (vram ? uapi::AllocMemFlags::kVram : uapi::AllocMemFlags::kGtt) |
                                   (visible ? uapi::AllocMemFlags::kPublic : uapi::AllocMemFlags::kNone);
  bo.dmabuf = std::make_shared<const DmaBufObject>(DmaBufObject{
      .pages = bo.pages,
      .size = bo.size,
      .alloc_flags = uapi::ToRaw(kept),
      .gpu_index = bo.gpu_index,
      .charge = std::make_shared<ExportCharge>(&c.shared, vram, bo.gpu_index, bo.accounted),
  });
  return 0;
}

int ExportDmabuf(IoctlContext& c, uapi::ExportDmabufArgs& args) {
  const std::optional<size_t> gpu = FindGpu(c.topology, uapi::HandleGpuId(args.handle));
  if (!gpu) return -EINVAL;
  if (!c.process.devices[*gpu].vm_token) return -EINVAL;  // kfd_get_process_device_data: no pdd
  const auto it = c.process.bos.find(args.handle);
  if (it == c.process.bos.end()) return -EINVAL;  // kfd_process_device_translate_handle
  Bo& bo = it->second;
  if (const int err = EnsureDmaBufObject(c, bo); err != 0) return err;
  // dma_buf_fd(dmabuf, flags): of the file flags only O_CLOEXEC matters for a new descriptor.
  const int fd = c.shared.dmabufs().Export(bo.dmabuf, (args.flags & O_CLOEXEC) != 0);
  if (fd < 0) return fd;
  args.dmabuf_fd = static_cast<uint32_t>(fd);
  return 0;
}

}  // namespace hipmem::kfd_sim::sim_internal
