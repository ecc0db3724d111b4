// The Linux backend's DRM side, beyond the KfdDevice interface: libdrm's device list and the
// process-wide render node files the Linux KfdDevice hands out from OpenRenderNode.
//
// Plays libhsakmt's hsakmt_open_drm_render_device (fmm.c). Declared here for tests and diagnostics; the
// definitions live in kfd_device_linux.cc, the one file that calls the kernel and reads errno.
#ifndef HIPMEM_THUNK_KFD_DEVICE_LINUX_H_
#define HIPMEM_THUNK_KFD_DEVICE_LINUX_H_

#include <vector>

#include "absl/status/statusor.h"
#include "thunk/drm_render_nodes.h"

namespace hipmem::thunk {

// Lists the DRM devices libdrm finds (drmGetDevices2), each with its render minor and PCI address.
// Errors: FromErrno of libdrm's answer, e.g. kNotFound (ENOENT) on a machine without /dev/dri.
absl::StatusOr<std::vector<DrmDeviceInfo>> ListDrmDevices();

// Returns the fd of the render node KFD names for `gpu`, after CheckRenderNode(gpu, drm_devices) allows
// it. The first user opens /dev/dri/renderD<minor> O_RDWR | O_CLOEXEC, then, like libhsakmt, hands the
// file to libdrm_amdgpu (amdgpu_device_initialize) and keeps libdrm's fd for that GPU
// (amdgpu_device_get_fd), so KFD and every libdrm_amdgpu user in the process share one DRM file; a file
// libdrm_amdgpu does not take is used as opened. Later users share the same fd (SharedRenderNodes).
// Errors: CheckRenderNode's; FromErrno of the failed open, e.g. kNotFound (ENOENT) when the node does not
// exist, kPermissionDenied (EACCES) for a user outside the group owning /dev/dri (render or video).
absl::StatusOr<int> AcquireRenderNode(const KfdRenderNode& gpu,
                                      const absl::StatusOr<std::vector<DrmDeviceInfo>>& drm_devices);

// Drops one reference AcquireRenderNode took; the last one closes the file unless KFD has bound a VM to it.
void ReleaseRenderNode(int fd);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_DEVICE_LINUX_H_
