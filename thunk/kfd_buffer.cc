#include "thunk/kfd_buffer.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "base/log.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/ioctl.h"

namespace hipmem::thunk {

absl::StatusOr<KfdBuffer::Allocated> KfdBuffer::Allocate(KfdDevice& device, GpuId gpu, DeviceAddress va, Bytes size,
                                                         uint32_t ioc_flags, uint64_t mmap_offset_in) {
  kfd_uapi::AllocMemoryOfGpuArgs args{};
  args.va_addr = va.raw();
  args.size = size.raw();
  args.gpu_id = gpu.raw();
  args.flags = ioc_flags;
  args.mmap_offset = mmap_offset_in;
  if (absl::Status s = Ioctl(device, kfd_uapi::kAllocMemoryOfGpu, args); !s.ok()) return s;
  // Adopted on the line after the kernel answers: every later early return frees it.
  return Allocated{KfdBuffer(&device, KfdBufferHandle(args.handle)), args.mmap_offset};
}

absl::StatusOr<KfdBuffer> KfdBuffer::Import(KfdDevice& device, GpuId gpu, DeviceAddress va, int dmabuf_fd) {
  kfd_uapi::ImportDmabufArgs args{};
  args.va_addr = va.raw();
  args.gpu_id = gpu.raw();
  args.dmabuf_fd = static_cast<uint32_t>(dmabuf_fd);
  if (absl::Status s = Ioctl(device, kfd_uapi::kImportDmabuf, args); !s.ok()) return s;
  return KfdBuffer(&device, KfdBufferHandle(args.handle));
}

absl::StatusOr<KfdBuffer::SharedImport> KfdBuffer::ImportShared(KfdDevice& device, GpuId gpu, DeviceAddress va,
                                                                 const std::array<uint32_t, 4>& share_handle) {
  kfd_uapi::IpcImportHandleArgs args{};
  args.va_addr = va.raw();
  args.gpu_id = gpu.raw();
  std::copy(share_handle.begin(), share_handle.end(), std::begin(args.share_handle));
  if (absl::Status s = Ioctl(device, kfd_uapi::kIpcImportHandle, args); !s.ok()) return s;
  return SharedImport{KfdBuffer(&device, KfdBufferHandle(args.handle)), args.mmap_offset, args.flags};
}

KfdBuffer::~KfdBuffer() {
  if (!handle_.has_value()) return;
  if (absl::Status s = std::move(*this).Free(); !s.ok()) HIPMEM_LOG(kError, "freeing a KFD buffer: ", s.message());
}

KfdBuffer::KfdBuffer(KfdBuffer&& other) noexcept
    : device_(other.device_), handle_(std::exchange(other.handle_, std::nullopt)) {}

KfdBuffer& KfdBuffer::operator=(KfdBuffer&& other) noexcept {
  if (this != &other) {
    if (handle_.has_value()) {
      if (absl::Status s = std::move(*this).Free(); !s.ok()) {
        HIPMEM_LOG(kError, "freeing a KFD buffer: ", s.message());
      }
    }
    device_ = other.device_;
    handle_ = std::exchange(other.handle_, std::nullopt);
  }
  return *this;
}

absl::Status KfdBuffer::Free() && {
  if (!handle_.has_value()) return absl::OkStatus();
  kfd_uapi::FreeMemoryOfGpuArgs args{handle_->raw()};
  if (absl::Status s = Ioctl(*device_, kfd_uapi::kFreeMemoryOfGpu, args); !s.ok()) return s;
  handle_.reset();
  return absl::OkStatus();
}

std::optional<KfdBufferHandle> KfdBuffer::Release() && { return std::exchange(handle_, std::nullopt); }

}  // namespace hipmem::thunk
