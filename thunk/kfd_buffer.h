// The owner of a KFD buffer object (AMDKFD_IOC_ALLOC_MEMORY_OF_GPU's handle).
//
// Plays the `handles[]` half of libhsakmt's vm_object_t (fmm.c), which __fmm_release frees with
// AMDKFD_IOC_FREE_MEMORY_OF_GPU; the other half, the VA area, is a VaReservation (svm_aperture.h). Each half frees
// itself, so every failure path between allocating and recording an allocation frees by destructor.
#ifndef HIPMEM_THUNK_KFD_BUFFER_H_
#define HIPMEM_THUNK_KFD_BUFFER_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/strong_id.h"
#include "base/units.h"
#include "thunk/kfd_device.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// The kernel's buffer handle: gpu_id in the upper 32 bits, the process's IDR slot below (kfd_priv.h
// MAKE_HANDLE). Valid only in the KFD process that allocated it.
using KfdBufferHandle = StrongId<struct KfdBufferHandleTag, uint64_t>;

// Owns one KFD buffer object of one KFD process; the destructor frees it (AMDKFD_IOC_FREE_MEMORY_OF_GPU), which
// also drops its GPU mappings. Thread-compatible.
class KfdBuffer {
 public:
  // What AMDKFD_IOC_ALLOC_MEMORY_OF_GPU returns: the buffer and the offset to mmap it at (the render node's for a
  // VRAM or GTT buffer, /dev/kfd's for a doorbell slice).
  struct Allocated;

  // Issues AMDKFD_IOC_ALLOC_MEMORY_OF_GPU on `device` (not owned; must outlive the buffer). `va` 0 asks for a
  // buffer without a GPU VA (the kernel allows it for VRAM only); `mmap_offset_in` is the CPU address for a
  // USERPTR buffer and 0 otherwise. Errors: the kernel's errno (kResourceExhausted for ENOMEM, ...).
  static absl::StatusOr<Allocated> Allocate(KfdDevice& device, GpuId gpu, DeviceAddress va, Bytes size,
                                            uint32_t ioc_flags, uint64_t mmap_offset_in);

  // Issues AMDKFD_IOC_IMPORT_DMABUF on `device` (not owned; must outlive the buffer): a new buffer of this process
  // on GPU `gpu` for the dma-buf behind descriptor `dmabuf_fd`, at GPU VA `va` (0: none, VRAM only). The pages stay
  // the exporter's; freeing the import drops this process's hold on them. Errors: the kernel's errno (EBADF for a closed
  // descriptor, EINVAL for one that is not a dma-buf, an unknown GPU, a bad VA...).
  static absl::StatusOr<KfdBuffer> Import(KfdDevice& device, GpuId gpu, DeviceAddress va, int dmabuf_fd);

  // What AMDKFD_IOC_IPC_IMPORT_HANDLE returns.
  struct SharedImport;
  // Issues AMDKFD_IOC_IPC_IMPORT_HANDLE (the amdgpu-DKMS extension) on `device` (not owned; must outlive the
  // buffer): a new buffer of this process on GPU `gpu` at GPU VA `va` for the buffer another process shared as
  // `share_handle`. The pages stay the exporter's; freeing the import drops this process's hold on them.
  // Errors: the kernel's errno (EINVAL for an unknown handle or GPU, ENOTTY from a kernel without the ioctl...).
  static absl::StatusOr<SharedImport> ImportShared(KfdDevice& device, GpuId gpu, DeviceAddress va,
                                                   const std::array<uint32_t, 4>& share_handle);

  ~KfdBuffer();
  KfdBuffer(KfdBuffer&& other) noexcept;
  KfdBuffer& operator=(KfdBuffer&& other) noexcept;
  KfdBuffer(const KfdBuffer&) = delete;
  KfdBuffer& operator=(const KfdBuffer&) = delete;

  // The buffer's handle; nullopt once moved from, freed or released.
  std::optional<KfdBufferHandle> handle() const { return handle_; }

  // Frees the buffer now and reports the kernel's verdict. Consumes the buffer when the kernel frees it; when the
  // kernel refuses (it keeps the handle, as for the event page it owns), the error comes back and this still owns
  // the handle, so a later Free or the destructor tries again. OK when empty.
  absl::Status Free() &&;

  // Gives up ownership without freeing: closing /dev/kfd (the KFD process's end) frees it then.
  [[nodiscard]] std::optional<KfdBufferHandle> Release() &&;

 private:
  KfdBuffer(KfdDevice* device, KfdBufferHandle handle) : device_(device), handle_(handle) {}

  KfdDevice* device_;  // Not owned; must outlive this.
  std::optional<KfdBufferHandle> handle_;
};

struct KfdBuffer::Allocated {
  KfdBuffer buffer;
  uint64_t mmap_offset;
};

struct KfdBuffer::SharedImport {
  KfdBuffer buffer;
  uint64_t mmap_offset;  // the render node's, to CPU-map it
  uint32_t flags;        // what the exporter passed to AMDKFD_IOC_IPC_EXPORT_HANDLE
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_BUFFER_H_
