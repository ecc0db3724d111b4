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
    return GpuAccess(DeviceAddress(info.gpu_address.raw() + offset), thunk::KfdRegistration());
  }
  ASSIGN_OR_RETURN(thunk::KfdRegistration registration, kfd.RegisterMemory(address.ToPointer(), size, just_gpu));
  RETURN_IF_ERROR(kfd.MapMemoryToGpu(address, just_gpu, size));  // `registration` drops it
  const DeviceAddress gpu_address = registration.gpu_address();
  return GpuAccess(gpu_address, std::move(registration));
}

}  // namespace hipmem::hsa
