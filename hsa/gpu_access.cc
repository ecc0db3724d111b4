#include "hsa/gpu_access.h"

#include <algorithm>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace hipmem::hsa {

absl::StatusOr<GpuAccess> GpuAccess::Acquire(thunk::Kfd& kfd, thunk::NodeId gpu, DeviceAddress address, Bytes size) {
  const std::span<const thunk::NodeId> just_gpu(&gpu, 1);
  const thunk::PointerInfo info = kfd.QueryPointerInfo(address.ToPointer());
  if (info.type != thunk::PointerType::kUnknown) {
    // The thunk finds a buffer by either of its addresses: the CPU one, or the GPU one (for locked memory the
    // agent pointer hsa_amd_memory_lock returned, which a client hands to a copy as ROCr allows).
    const bool by_cpu_address = info.cpu_address.raw() != 0 && address >= info.cpu_address &&
                                address.raw() - info.cpu_address.raw() < info.size.raw();
    const uint64_t offset = address.raw() - (by_cpu_address ? info.cpu_address : info.gpu_address).raw();
    if (offset > info.size.raw() || size.raw() > info.size.raw() - offset) {
      return absl::OutOfRangeError(absl::StrCat(AddressText(address), " + ", size.raw(), " runs past the memory at ",
                                                AddressText(info.cpu_address)));
    }
    if (std::find(info.mapped_nodes.begin(), info.mapped_nodes.end(), gpu) == info.mapped_nodes.end()) {
      RETURN_IF_ERROR(kfd.MapMemoryToGpu(info.cpu_address, just_gpu, info.size));
    }
    return GpuAccess(&kfd, DeviceAddress(info.gpu_address.raw() + offset), nullptr);
  }
  ASSIGN_OR_RETURN(const DeviceAddress gpu_address, kfd.RegisterMemory(address.ToPointer(), size, just_gpu));
  if (absl::Status mapped = kfd.MapMemoryToGpu(address, just_gpu, size); !mapped.ok()) {
    (void)kfd.DeregisterMemory(address.ToPointer());
    return mapped;
  }
  return GpuAccess(&kfd, gpu_address, address.ToPointer());
}

GpuAccess::GpuAccess(GpuAccess&& other) noexcept
    : kfd_(other.kfd_), gpu_address_(other.gpu_address_), pinned_(std::exchange(other.pinned_, nullptr)) {}

GpuAccess& GpuAccess::operator=(GpuAccess&& other) noexcept {
  if (this != &other) {
    if (pinned_ != nullptr) (void)kfd_->DeregisterMemory(pinned_);
    kfd_ = other.kfd_;
    gpu_address_ = other.gpu_address_;
    pinned_ = std::exchange(other.pinned_, nullptr);
  }
  return *this;
}

GpuAccess::~GpuAccess() {
  if (pinned_ == nullptr) return;
  if (absl::Status s = kfd_->DeregisterMemory(pinned_); !s.ok()) HIPMEM_LOG(kError, "unpinning a copy buffer: ", s.message());
}

}  // namespace hipmem::hsa
