// The amdgpu DRM render node (/dev/dri/renderD<minor>) of a simulated GPU, as far as a ROCm process uses it
// without the graphics stack: the DRM core's VERSION and GET_CAP, and amdgpu's INFO queries that libdrm's
// amdgpu_device_initialize and amdgpu_query_* issue (device info, the GB_ADDR_CONFIG register, memory heaps and
// usage, firmware versions). The buffers KFD allocates are mapped through the node too; that part is the
// simulator's (SimFile::MmapBo) and the preload routes it there.
//
// Answers as drm_ioctl() and amdgpu_info_ioctl() of Linux 6.1 (Debian bookworm's kernel) do:
// - the request's nr picks the handler (core below DRM_COMMAND_BASE, the driver's from it); the caller's size and
//   direction bits decide what is copied in (zero-filled up to the kernel's struct) and back out;
// - an nr the kernel has no handler for answers -EINVAL; a core ioctl not allowed on render nodes (GET_CLIENT,
//   GET_MAGIC, AUTH_MAGIC, SET_VERSION, GET_UNIQUE...) -EACCES, which is how libdrm's amdgpu_get_auth never asks
//   a render node (it checks the node type with fstat first);
// - AMDGPU_INFO: -EINVAL without a return pointer or size or for an unknown query, and at most return_size bytes
//   written; a bad user pointer -EFAULT (copies go through process_vm_writev, never a crash).
// Deliberate: amdgpu's command submission, GEM, context, VM and fence ioctls are not modelled (no graphics queue
// exists): they answer -EOPNOTSUPP, as does a core GEM/PRIME/syncobj request.
#ifndef HIPMEM_TESTING_KFD_SIM_PRELOAD_RENDER_NODE_H_
#define HIPMEM_TESTING_KFD_SIM_PRELOAD_RENDER_NODE_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_preload {

// The DRM character devices' major (drm_core: DRM_MAJOR).
inline constexpr uint32_t kDrmMajor = 226;
// Render minors start at 128; the primary node of the same GPU is minor - 128 (/dev/dri/card<n>).
inline constexpr uint32_t kRenderMinorBase = 128;

// What the node reports about memory use at the time of the call.
struct RenderNodeUsage {
  uint64_t vram_used = 0;    // bytes of this GPU's VRAM in buffers, every process
  uint64_t system_used = 0;  // bytes of GTT + userptr buffers, every process
};

// Runs one ioctl on the render node of `gpu`, on a machine with `system_memory_bytes` of RAM (the GTT heap is sized
// from it). `usage` is called only by the memory-use queries. Returns 0 or a negative errno.
int RenderNodeIoctl(const kfd_sim::GpuConfig& gpu, uint64_t system_memory_bytes,
                    absl::FunctionRef<RenderNodeUsage()> usage, unsigned long request, void* arg);

}  // namespace hipmem::kfd_preload

#endif  // HIPMEM_TESTING_KFD_SIM_PRELOAD_RENDER_NODE_H_
