// The simulated kernel's IPC share handles: AMDKFD_IOC_IPC_EXPORT_HANDLE and AMDKFD_IOC_IPC_IMPORT_HANDLE, the
// amdgpu-DKMS amdkfd's kfd_ipc.c (a mainline kernel has neither). Export names a buffer with 128 bits; import
// finds the buffer by them and gives the importer a BO of its own at its own VA over the same pages, counted once
// against the exporter. A handle of a KFD process of this simulator resolves in the simulator's table, as in the
// kernel's global one; a handle of another OS process's simulator (its last word is that process's pid) is asked
// of that process over its IPC socket (ipc_socket.h), and the pages arrive as a descriptor of its page file.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/bo_pages.h"
#include "testing/kfd_sim/ipc_socket.h"
#include "testing/kfd_sim/ipc_table.h"
#include "testing/kfd_sim/sim_internal.h"

namespace hipmem::kfd_sim::sim_internal {
namespace {

ShareHandle HandleOf(const uint32_t (&words)[4]) {
  ShareHandle handle{};
  std::copy(std::begin(words), std::end(words), handle.begin());
  return handle;
}

// The object another OS process's simulator exported under `handle`, as an object of this simulator whose pages
// are borrowed: a range of that process's page file, kept alive for as long as this object lives by the
// connection it came over. Not entered in this simulator's table (the handle is the exporter's, and a re-export
// names it again). Not charged to this machine: the exporter's machine owns the memory. `gpu` is the GPU it is
// imported on here.
struct Remote {
  int error = 0;
  std::shared_ptr<const IpcObject> object;
};
Remote FetchRemote(IoctlContext& c, const ShareHandle& handle, size_t gpu) {
  RemoteImport remote = ImportFromProcess(handle);
  if (remote.error != 0) {
    c.log.WriteRatelimited(SimLogLevel::kDebug,
                           absl::StrCat("kfd_sim: process ", c.process_id, ": IPC handle of pid ",
                                        handle[kShareHandlePidWord], " not imported: ", remote.error));
    return Remote{.error = remote.error, .object = nullptr};
  }
  const Bytes size(remote.size);
  if (size.is_zero() || !IsAligned(size, kPageSize) || !IsAligned(Bytes(remote.offset), kPageSize)) {
    return Remote{.error = -EIO, .object = nullptr};
  }
  auto connection = std::make_shared<const ProcessLocalFd>(std::move(remote.connection));
  std::shared_ptr<PageFile> file =
      PageFile::Borrow(absl::StrCat("kfd_sim ipc pid=", handle[kShareHandlePidWord]), std::move(remote.file),
                       std::move(connection));
  auto dmabuf = std::make_shared<const DmaBufObject>(DmaBufObject{
      .pages = BoPages::Borrow(std::move(file), remote.offset, size),
      .size = size,
      .alloc_flags = remote.alloc_flags,
      .gpu_index = gpu,
      .charge = nullptr,
  });
  return Remote{.error = 0,
                .object = std::make_shared<const IpcObject>(
                    IpcObject{.handle = handle, .dmabuf = std::move(dmabuf), .flags = remote.flags})};
}

}  // namespace

int IpcExportHandle(IoctlContext& c, uapi::IpcExportHandleArgs& args) {
  // kfd_ioctl_ipc_export_handle: kfd_device_by_id, then kfd_bind_process_to_device.
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  if (!c.process.devices[*gpu].vm_token) return -ENODEV;
  // kfd_process_device_find_bo(pdd, GET_IDR_HANDLE(handle)): the idr is looked up on `gpu_id`'s device, so the
  // buffer must be that GPU's.
  const auto it = c.process.bos.find(uapi::MakeHandle(args.gpu_id, uapi::HandleIdr(args.handle)));
  if (it == c.process.bos.end()) return -EINVAL;
  Bo& bo = it->second;
  // amdgpu_amdkfd_gpuvm_export_ipc_obj: the buffer's dma-buf first (user pages: -EPERM); then its ipc_obj, made
  // once: a second export, or an export of an import, names the same object (and keeps its first flags).
  if (const int err = EnsureDmaBufObject(c, bo); err != 0) return err;
  if (bo.ipc == nullptr) {
    absl::StatusOr<std::shared_ptr<const IpcObject>> made = c.shared.ipc().Create(bo.dmabuf, args.flags);
    if (!made.ok()) return -ENOMEM;  // kfd_ipc_store_insert's kmalloc failing is the one way it fails there
    bo.ipc = *std::move(made);
  }
  std::copy(bo.ipc->handle.begin(), bo.ipc->handle.end(), std::begin(args.share_handle));
  return 0;
}

int IpcImportHandle(IoctlContext& c, uapi::IpcImportHandleArgs& args) {
  // kfd_ioctl_ipc_import_handle: a device of this process (kfd_process_device_data_by_id).
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  // kfd_ipc_import_handle: the handle, all 128 bits of it, or -EINVAL.
  const ShareHandle handle = HandleOf(args.share_handle);
  std::shared_ptr<const IpcObject> object;
  if (handle[kShareHandlePidWord] == static_cast<uint32_t>(getpid())) {
    object = c.shared.ipc().Find(handle);
    if (object == nullptr) return -EINVAL;
  } else {
    Remote remote = FetchRemote(c, handle, *gpu);
    if (remote.error != 0) return remote.error;
    object = std::move(remote.object);
  }
  // kfd_import_dmabuf_create_kfd_bo: bind the device, then amdgpu_amdkfd_gpuvm_import_dmabuf at the VA.
  ProcessDevice& device = c.process.devices[*gpu];
  if (!device.vm_token) return -ENODEV;
  // Deliberate: the VA is checked as ALLOC checks it, as for IMPORT_DMABUF.
  const bool vram = uapi::HasFlag(uapi::AllocMemFlagsFromRaw(object->dmabuf->alloc_flags), uapi::AllocMemFlags::kVram);
  const VaCheck checked = CheckNewBufferVa(device, args.va_addr, object->dmabuf->size, vram);
  if (checked.error != 0) return checked.error;
  const uint32_t flags = object->flags;
  std::shared_ptr<const DmaBufObject> dmabuf = object->dmabuf;
  const ImportedBo imported = AddImportedBo(c, *gpu, checked.va, std::move(dmabuf), std::move(object));
  if (imported.error != 0) return imported.error;
  args.handle = imported.handle;
  args.mmap_offset = imported.mmap_offset;
  args.flags = flags;
  return 0;
}

}  // namespace hipmem::kfd_sim::sim_internal
