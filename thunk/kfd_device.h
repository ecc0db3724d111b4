// The KFD device: what the thunk talks to instead of calling ioctl(2) directly.
//
// Plays libhsakmt's /dev/kfd file descriptor plus the DRM render nodes it mmaps VRAM through.
// Two backends, each its own target: the Linux one here (the real /dev/kfd) and the in-process
// simulator (kfd_device_sim.h, over testing/kfd_sim). default_kfd_device.h picks one. This interface
// names no simulator type, so the thunk proper never depends on the simulator.
#ifndef HIPMEM_THUNK_KFD_DEVICE_H_
#define HIPMEM_THUNK_KFD_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/units.h"

namespace hipmem::thunk {

// One open of /dev/kfd (one KFD process context). Thread-safe.
class KfdDevice {
 public:
  virtual ~KfdDevice() = default;

  // "linux" or "sim".
  virtual absl::string_view backend_name() const = 0;

  // The directory shaped like /sys/devices/virtual/kfd/kfd/topology describing this device.
  virtual const std::string& sysfs_topology_root() const = 0;

  // Issues one KFD ioctl. Returns 0, or the positive errno the kernel answered.
  virtual int Ioctl(unsigned long request, void* arg) = 0;

  // Opens /dev/dri/renderD<minor>; returns its fd. Closed with CloseRenderNode.
  virtual absl::StatusOr<int> OpenRenderNode(uint32_t drm_render_minor) = 0;
  virtual void CloseRenderNode(int render_fd) = 0;

  // mmap(addr, size, prot, MAP_SHARED | MAP_FIXED, render_fd, mmap_offset): places a BO's pages at
  // `addr` for the CPU, replacing the VA reservation there.
  virtual absl::Status MapBoForCpu(int render_fd, void* addr, Bytes size, int prot, uint64_t mmap_offset) = 0;

  // True when MapBoForCpu of an invisible VRAM buffer (PROT_NONE) over the caller's PROT_NONE reservation leaves
  // that reservation itself in place, nothing of the buffer mapped there: the call changes nothing (Kfd skips it),
  // and releasing the range needs no fresh reservation. False for the Linux backend, where the render node's mapping replaces the
  // reservation (and holds a reference to the buffer until it is replaced in turn).
  virtual bool InvisibleVramKeepsReservation() const { return false; }

  // True when a buffer's CPU mapping (MapBoForCpu) may stay in place after the buffer is freed, made inaccessible
  // (mprotect PROT_NONE), as the reservation of its range: the backend then neither keeps the freed buffer alive
  // for the mapping nor ever gives its pages to another buffer, so the mapping holds nothing and reaches nothing.
  // False for the Linux backend, where a render node's mapping holds a reference to the freed buffer (its VRAM
  // stays allocated) until the mapping is replaced.
  virtual bool FreedBoCpuMappingMayStay() const { return false; }

  // mmap(addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, <the /dev/kfd fd>, mmap_offset): places
  // the process's doorbell slice of one GPU (offset KFD_MMAP_TYPE_DOORBELL | gpu id) or a GPU's remapped MMIO
  // page (KFD_MMAP_TYPE_MMIO | gpu id) at `addr`.
  virtual absl::Status MapKfdPagesForCpu(void* addr, Bytes size, uint64_t mmap_offset) = 0;

  // Writes `value` to the doorbell at `doorbell` (inside a slice MapKfdPagesForCpu placed) with release
  // order: on hardware the store is the doorbell. The simulator notices a bare store too (its doorbell poller,
  // within 0.5 ms while the queue is in use), but its backend adds a futex wake so our own rings reach the
  // engine at once (testing/kfd_sim/engines/doorbell.h); every doorbell write in the stack goes through here.
  virtual void RingDoorbell(uint64_t* doorbell, uint64_t value) = 0;
};

// Opens /dev/kfd. kFailedPrecondition (KERNEL_IO_CHANNEL_NOT_OPENED) when it cannot be opened.
absl::StatusOr<std::unique_ptr<KfdDevice>> OpenLinuxKfdDevice();

// True when this machine has a /dev/kfd.
bool LinuxKfdPresent();

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_DEVICE_H_
