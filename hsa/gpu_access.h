// Making memory reachable by one GPU for a copy: the part of ROCr's blit path that maps another agent's
// memory and pins unregistered host buffers before a DMA or blit kernel touches them.
#ifndef HIPMEM_HSA_GPU_ACCESS_H_
#define HIPMEM_HSA_GPU_ACCESS_H_

#include <utility>

#include "absl/status/statusor.h"
#include "base/units.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

// The GPU address of [address, address + size) on one GPU. Move-only; when the range had to be pinned for
// this use (host memory nobody registered), it owns that registration, which goes with it.
class GpuAccess {
 public:
  // Memory the thunk allocated or registered is mapped onto `gpu` if it is not yet, and stays mapped (as
  // hsa_amd_agents_allow_access would leave it); other host memory is registered (USERPTR: the kernel pins
  // its pages) and mapped for the lifetime of the returned object.
  // Errors: kOutOfRange when the range runs past the allocation or registration it starts in; the thunk's
  // (the kernel's errno: kInvalidArgument for another GPU's VRAM without a link, EFAULT-based errors for
  // unmapped or inaccessible host pages, ...).
  static absl::StatusOr<GpuAccess> Acquire(thunk::Kfd& kfd, thunk::NodeId gpu, DeviceAddress address, Bytes size);

  // Memory the caller knows `gpu` maps already (a copy's resolved side, hsa/copy.h ResolvedSide): nothing to look up,
  // map or release.
  static GpuAccess AlreadyMapped(DeviceAddress gpu_address) { return GpuAccess(gpu_address, thunk::KfdRegistration()); }

  GpuAccess(GpuAccess&& other) noexcept = default;
  GpuAccess& operator=(GpuAccess&& other) noexcept = default;
  GpuAccess(const GpuAccess&) = delete;
  GpuAccess& operator=(const GpuAccess&) = delete;
  ~GpuAccess() = default;

  DeviceAddress gpu_address() const { return gpu_address_; }
  // Whether the range was pinned for this use (and is unpinned when this goes).
  bool pinned() const { return !pinned_.empty(); }

 private:
  GpuAccess(DeviceAddress gpu_address, thunk::KfdRegistration pinned)
      : gpu_address_(gpu_address), pinned_(std::move(pinned)) {}

  DeviceAddress gpu_address_;
  thunk::KfdRegistration pinned_;  // the range pinned for this use, or empty
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_GPU_ACCESS_H_
