// The KFD device: what the thunk talks to instead of calling ioctl(2) directly.
//
// Plays libhsakmt's /dev/kfd file descriptor plus the DRM render nodes it mmaps VRAM through.
// Two backends: the Linux one (the real /dev/kfd, used when it exists) and the in-process
// simulator (testing/kfd_sim, the embedded default). OpenDefaultKfdDevice() chooses:
//   HIPMEM_KFD_BACKEND=sim | linux   explicit choice;
//   unset                            linux if /dev/kfd exists, else sim.
// HIPMEM_SIM_PRESET=<name> picks the default simulated machine (testing/kfd_sim/presets.h); unset or
// empty, one MI300X.
#ifndef HIPMEM_THUNK_KFD_DEVICE_H_
#define HIPMEM_THUNK_KFD_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/units.h"

namespace hipmem::kfd_sim {
class SimFile;
class Simulator;
struct Topology;
}  // namespace hipmem::kfd_sim

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

  // mmap(addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, <the /dev/kfd fd>, mmap_offset): places
  // the process's doorbell slice of one GPU (offset KFD_MMAP_TYPE_DOORBELL | gpu id) at `addr`.
  virtual absl::Status MapDoorbellsForCpu(void* addr, Bytes size, uint64_t mmap_offset) = 0;

  // Writes `value` to the doorbell at `doorbell` (inside a slice MapDoorbellsForCpu placed) with release
  // order: on hardware the store is the doorbell. The simulator notices a bare store too (its doorbell poller,
  // within 0.5 ms while the queue is in use), but its backend adds a futex wake so our own rings reach the
  // engine at once (testing/kfd_sim/engines/doorbell.h); every doorbell write in the stack goes through here.
  virtual void RingDoorbell(uint64_t* doorbell, uint64_t value) = 0;

  // The simulated process behind this device, for tests that play the GPU's side (signal an event, raise
  // a VM fault); null on the Linux backend.
  virtual kfd_sim::SimFile* simulated_file() { return nullptr; }
};

// A simulated machine: one Simulator plus the sysfs tree it exposes. Shared by every device
// opened on it; removes its sysfs tree when the last user goes. Thread-safe.
class SimMachine {
 public:
  // Errors: whatever creating the simulator or writing its sysfs tree returns.
  static absl::StatusOr<std::shared_ptr<SimMachine>> Create(const kfd_sim::Topology& topology);
  // The process-wide machine with the default topology (HIPMEM_SIM_PRESET, else one MI300X), created on
  // first use. kInvalidArgument, on every call, when HIPMEM_SIM_PRESET names no preset.
  static absl::StatusOr<std::shared_ptr<SimMachine>> Default();

  ~SimMachine();
  SimMachine(const SimMachine&) = delete;
  SimMachine& operator=(const SimMachine&) = delete;

  kfd_sim::Simulator& simulator() { return *simulator_; }
  const std::string& sysfs_root() const { return sysfs_root_; }

 private:
  SimMachine(std::unique_ptr<kfd_sim::Simulator> simulator, std::string sysfs_root);

  std::unique_ptr<kfd_sim::Simulator> simulator_;
  std::string sysfs_root_;
};

// Opens a new KFD process context on `machine`.
absl::StatusOr<std::unique_ptr<KfdDevice>> OpenSimKfdDevice(std::shared_ptr<SimMachine> machine);

// Opens /dev/kfd. kFailedPrecondition (KERNEL_IO_CHANNEL_NOT_OPENED) when it cannot be opened.
absl::StatusOr<std::unique_ptr<KfdDevice>> OpenLinuxKfdDevice();

// Opens the backend HIPMEM_KFD_BACKEND names, else Linux when /dev/kfd exists, else the default
// simulated machine. kInvalidArgument for an unknown backend name.
absl::StatusOr<std::unique_ptr<KfdDevice>> OpenDefaultKfdDevice();

// True when this machine has a /dev/kfd.
bool LinuxKfdPresent();

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_DEVICE_H_
