// The simulator backend of KfdDevice: a process-wide simulated machine (testing/kfd_sim) and the KFD
// processes opened on it. Its own target, so only what chooses a backend (default_kfd_device) and the tests
// that play the GPU's side depend on the simulator.
#ifndef HIPMEM_THUNK_KFD_DEVICE_SIM_H_
#define HIPMEM_THUNK_KFD_DEVICE_SIM_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "testing/kfd_sim/held_dir.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/kfd_device.h"

namespace hipmem::thunk {

// A simulated machine: one Simulator plus the sysfs tree it exposes. Shared by every device
// opened on it; removes its sysfs tree when the last user goes, and a later machine removes the tree of a process
// that was killed before it could (held_dir.h). Thread-safe.
class SimMachine {
 public:
  // Errors: whatever creating the simulator or writing its sysfs tree returns.
  static absl::StatusOr<std::shared_ptr<SimMachine>> Create(const kfd_sim::Topology& topology);
  // The process-wide machine with the default topology (HIPMEM_SIM_PRESET, else one MI300X), created on
  // first use. kInvalidArgument, on every call, when HIPMEM_SIM_PRESET names no preset. One per OS process: a
  // forked child gets a fresh machine of the same default topology (the parent's is left untouched), and only
  // the process that created a machine removes its sysfs tree at exit.
  static absl::StatusOr<std::shared_ptr<SimMachine>> Default();

  ~SimMachine();
  SimMachine(const SimMachine&) = delete;
  SimMachine& operator=(const SimMachine&) = delete;

  kfd_sim::Simulator& simulator() { return *simulator_; }
  const std::string& sysfs_root() const { return sysfs_root_; }

 private:
  SimMachine(std::unique_ptr<kfd_sim::Simulator> simulator, kfd_sim::HeldDir sysfs_dir);

  std::unique_ptr<kfd_sim::Simulator> simulator_;
  kfd_sim::HeldDir sysfs_dir_;  // holds the tree while this process (or a forked child) lives
  std::string sysfs_root_;
};

// Opens a new KFD process context on `machine`.
absl::StatusOr<std::unique_ptr<KfdDevice>> OpenSimKfdDevice(std::shared_ptr<SimMachine> machine);

// The simulated process behind `device`, for tests that play the GPU's side (signal an event, raise a VM
// fault, look at page tables); null when `device` is not a simulator device.
kfd_sim::SimFile* SimulatedFile(KfdDevice& device);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_DEVICE_SIM_H_
